#if Postgres
import Foundation
import PostgresNIO

/// A `tempo-pg-replica run` process (see its RunMode.swift), its output in a file of the server's folder.
struct ReplicaProcess: Sendable {
    let name: String
    let pid: pid_t
    let output: String

    /// Starts `tempo-pg-replica run` as replica `name` on `database`, with `options` (`--name value` pairs).
    static func start(
        _ server: PostgresServer, _ database: String, _ name: String, _ options: [String]
    ) throws -> Self {
        guard let path = PostgresTests.ProcessTests.replica else {
            throw ServerError(message: "tempo-pg-replica not found: build with --build-tests")
        }
        let output = "\(server.folder)/\(name)-\(UInt64.random(in: 0...UInt64.max)).out"
        let socket = "\(server.folder)/.s.PGSQL.\(server.port)"
        let pid = try ToolProcess.spawn(path, ["run", socket, database, name] + options, output: output)
        return ReplicaProcess(name: name, pid: pid, output: output)
    }

    /// What it printed so far.
    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    /// The integer after `prefix` on the first line that starts with it.
    func value(after prefix: String) -> Int64? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int64($0.dropFirst(prefix.count)) }
    }

    /// The `key=value` integers of its "stats" line.
    var stats: [String: Int] {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("stats ") }) else { return [:] }
        var stats: [String: Int] = [:]
        for field in line.split(separator: " ").dropFirst() {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { stats[String(parts[0])] = value }
        }
        return stats
    }

    /// Waits (bounded) for the process to end; returns what it printed and its exit status.
    func exit(within limit: Duration = .seconds(60)) async throws -> (text: String, status: Int32) {
        let pid = pid
        let status = try await step("waiting for replica process \(name) to end", within: limit) {
            var status: Int32 = 0
            while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(20)) }
            return status
        }
        return (text, status)
    }

    /// Kills it with SIGKILL and reaps it (for the end of a test, whatever happened).
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }
}

/// Creates the tables of `tempo-pg-replica run`: `runs` (every run of a date, no key) and `results` (a result per
/// date: a second one fails on the key).
func createRunTables(on client: PostgresClient) async throws {
    try await step("creating the runs and results tables") {
        try await client.query(
            """
            CREATE TABLE runs (job text NOT NULL, planned_at timestamptz NOT NULL, replica text NOT NULL, \
            token bigint NOT NULL, at timestamptz NOT NULL)
            """)
        try await client.query(
            """
            CREATE TABLE results (job text NOT NULL, planned_at timestamptz NOT NULL, replica text NOT NULL, \
            token bigint NOT NULL, at timestamptz NOT NULL, PRIMARY KEY (job, planned_at))
            """)
    }
}

/// The name of the database `client` is connected to.
func databaseName(_ client: PostgresClient) async throws -> String {
    try await step("reading the database's name") {
        var name = ""
        for try await value in try await client.query("SELECT current_database()").decode(String.self) {
            name = value
        }
        return name
    }
}
#endif
