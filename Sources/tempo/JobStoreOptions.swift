#if Jobs
import ArgumentParser
import Foundation
import TempoJobs

#if canImport(Glibc)
import Glibc
#endif

/// The store `tempo jobs` reads: `--postgres URL` (or `TEMPO_POSTGRES_URL`) or `--store PATH`, and `--json`.
struct JobStoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A PostgreSQL URL: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or with ?host=/socket/folder for a "
                + "Unix socket (default: the environment variable TEMPO_POSTGRES_URL).", valueName: "url"))
    var postgres: String?

    @Option(
        help: ArgumentHelp("A JSONFileJobStore's file (its .jobs.json and .control.json beside it).", valueName: "path")
    )
    var store: String?

    @Flag(help: "Print JSON for scripts instead of tables.")
    var json = false

    /// Opens the store, runs `body`, closes it; prints a failure and exits with its sysexits status.
    func withStore(_ body: @escaping @Sendable (any JobControlStore) async throws -> Void) async throws {
        let environment = ProcessInfo.processInfo.environment["TEMPO_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        let url = postgres ?? (store == nil ? environment : nil)
        do {
            switch (url, store) {
            case (.some, .some):
                throw JobsExit(64, "give one store: --postgres or --store, not both")
            case (nil, nil):
                throw JobsExit(64, "no store: give --postgres URL (or set TEMPO_POSTGRES_URL) or --store PATH")
            case (.some(let url), nil):
                try await withPostgresStore(url: url, body)
            case (nil, .some(let path)):
                let store = JSONFileJobStore(path: path)
                guard FileManager.default.fileExists(atPath: store.jobsPath) else {
                    throw JobsExit(
                        66, "\(store.jobsPath): no such file (no scheduler published a job to the store \(path))")
                }
                try await body(store)
            }
        } catch let exit as JobsExit {
            printError("tempo jobs: \(exit.message)")
            throw ExitCode(exit.status)
        } catch let error as JobError {
            printError("tempo jobs: \(error)")
            throw ExitCode(Self.status(of: error, postgres: url != nil))
        }
    }

    /// The sysexits status of a store's error.
    static func status(of error: JobError, postgres: Bool) -> Int32 {
        switch error.code {
        case .unknownJob, .corrupt, .newerVersion, .newerSchema: 65
        case .storeTimedOut, .coordinatorUnavailable: 75
        case .unreadable, .unwritable: postgres ? 75 : 74
        default: 70
        }
    }
}

/// A failure of `tempo jobs` with its exit status.
struct JobsExit: Error {
    let status: Int32
    let message: String

    init(_ status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }
}

#if !Postgres
/// Without the Postgres trait: exit 69, saying how to build it.
func withPostgresStore(url: String, _ body: @escaping @Sendable (any JobControlStore) async throws -> Void)
    async throws
{
    throw JobsExit(
        69,
        "this tempo was built without PostgreSQL support; build it with `swift build --traits default,Postgres` "
            + "(or use --store PATH for a JSON store)")
}
#endif
#endif
