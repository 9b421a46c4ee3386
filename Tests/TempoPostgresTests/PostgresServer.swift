#if Postgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

/// A throwaway PostgreSQL server for one test: a cluster in a new temporary folder (trust auth, a Unix socket
/// only, no TCP), started by ``start()`` and removed by ``remove()``. As root, `initdb` and `pg_ctl` run as the
/// `postgres` user (they refuse to run as root).
final class PostgresServer: Sendable {
    /// Why the database tests do not run here, or `nil` when they can.
    static let missing: String? = {
        guard let initdb = findTool("initdb"), findTool("pg_ctl") != nil else {
            return "PostgreSQL's initdb and pg_ctl are not on the PATH"
        }
        if getuid() == 0, !FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") {
            return "running as root without /usr/sbin/runuser to run \(initdb) as the postgres user"
        }
        return nil
    }()

    /// Whether the database tests run: the binaries are there, or `TEMPO_REQUIRE_POSTGRES=1` makes their absence
    /// a failure instead of a skip.
    static var enabled: Bool {
        missing == nil || ProcessInfo.processInfo.environment["TEMPO_REQUIRE_POSTGRES"] == "1"
    }

    /// The message of a skipped database test.
    static let skipMessage: Comment =
        "PostgreSQL tests skipped: install PostgreSQL 15+ (initdb and pg_ctl on the PATH) to run them; CI sets TEMPO_REQUIRE_POSTGRES=1 to fail instead"

    let folder: String
    let port: Int

    /// Creates the cluster (`initdb`) in a new temporary folder.
    init() throws {
        if let missing = Self.missing { throw ServerError(message: "TEMPO_REQUIRE_POSTGRES=1 but \(missing)") }
        folder = "/tmp/tempo-pg-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        port = Int.random(in: 20_000...60_000)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        if getuid() == 0 { try Self.run("/bin/chown", ["postgres", folder]) }
        try Self.tool("initdb", ["-D", "\(folder)/data", "-A", "trust", "-U", "tempo", "--no-sync"])
    }

    /// Starts the server and waits until it accepts connections.
    func start() throws {
        try Self.tool(
            "pg_ctl",
            [
                "-D", "\(folder)/data", "-o", "-k \(folder) -p \(port) -c listen_addresses='' -c fsync=off",
                "-l", "\(folder)/log", "-w", "-t", "120", "start",
            ])
    }

    /// Stops the server (fast shutdown: open connections are closed).
    func stop() throws {
        try Self.tool("pg_ctl", ["-D", "\(folder)/data", "-m", "fast", "-w", "-t", "120", "stop"])
    }

    /// Stops the server if it runs and deletes its folder.
    func remove() {
        try? stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A client configuration for the database `postgres` as `tempo` on the server's socket.
    var configuration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            unixSocketPath: "\(folder)/.s.PGSQL.\(port)", username: "tempo", password: nil, database: "postgres")
        configuration.options.connectTimeout = .seconds(30)
        return configuration
    }

    /// Runs `body` with a client of the server whose `run()` goes on meanwhile.
    func withClient<T: Sendable>(_ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    private static func findTool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs a PostgreSQL tool, as the `postgres` user when running as root.
    private static func tool(_ name: String, _ arguments: [String]) throws {
        guard let path = findTool(name) else { throw ServerError(message: "\(name) is not on the PATH") }
        if getuid() == 0 {
            try run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
        } else {
            try run(path, arguments)
        }
    }

    /// Runs a tool with its output in a file (a pipe would stay open in the server `pg_ctl start` leaves behind).
    private static func run(_ path: String, _ arguments: [String]) throws {
        let log = "/tmp/tempo-pg-tool-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ServerError(
                message: "\(path) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(text)")
        }
    }
}

/// A failure of the test server's tools.
struct ServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
#endif
