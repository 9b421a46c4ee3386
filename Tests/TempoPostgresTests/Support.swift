#if Postgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import TempoPostgres
import Testing

/// The database tests: one throwaway server for all of them (started once, removed at the end), a new database per
/// test. Skipped without PostgreSQL's binaries unless `TEMPO_REQUIRE_POSTGRES=1`.
@Suite(.enabled(if: PostgresServer.enabled, PostgresServer.skipMessage), .sharedPostgresServer)
struct PostgresTests {}

/// Starts one throwaway server around the suite it marks (all its tests, nested suites included) and removes it
/// at the end, whatever the tests did.
struct SharedPostgresServer: SuiteTrait, TestScoping {
    /// The server of the suite running now.
    @TaskLocal static var current: PostgresServer?

    var isRecursive: Bool { false }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? self : nil
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try await step(
            "starting a throwaway PostgreSQL server (initdb, pg_ctl start)", within: .seconds(300)
        ) {
            try await PostgresServer.start()
        }
        do {
            try await Self.$current.withValue(server) { try await function() }
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }
}

extension Trait where Self == SharedPostgresServer {
    /// One throwaway PostgreSQL server for the whole suite.
    static var sharedPostgresServer: Self { SharedPostgresServer() }
}

private let databaseCounter = Atomic<Int>(0)

/// Runs `body` against a new database on the suite's server (its schema migrated unless `migrated` is `false`),
/// with a client whose `run()` goes on meanwhile. Each step is bounded (see ``step(_:within:_:)``), the body by
/// `limit`, so a hang fails the test naming the step.
func withDatabase<T: Sendable>(
    migrated: Bool = true, limit: Duration = .seconds(180),
    _ body: @escaping @Sendable (PostgresServer, PostgresClient) async throws -> T
) async throws -> T {
    guard let server = SharedPostgresServer.current else {
        throw ServerError(message: "no server: a database test must be in a suite nested in PostgresTests")
    }
    let name = "test_\(databaseCounter.add(1, ordering: .relaxed).newValue)"
    try await step("creating the database \(name)") {
        try await withClient(server.configuration(database: "postgres")) { admin in
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
    }
    return try await withClient(server.configuration(database: name)) { client in
        if migrated {
            try await step("migrating the schema of \(name)") {
                try await PostgresSchema.migrate(on: client, logger: Logger(label: "test"))
            }
        }
        return try await step("the test's body on \(name)", within: limit) { try await body(server, client) }
    }
}

/// Runs `body` with a client of `configuration` whose `run()` goes on meanwhile, in a task of its own that is
/// ended (see ``endClient(_:)``) when `body` returns or throws. The body's error wins over the ending's.
func withClient<T: Sendable>(
    _ configuration: PostgresClient.Configuration, _ body: (PostgresClient) async throws -> T
) async throws -> T {
    let client = PostgresClient(configuration: configuration)
    let running = Task { await client.run() }
    var outcome: Result<T, any Error>
    do {
        outcome = .success(try await body(client))
    } catch {
        outcome = .failure(error)
    }
    do {
        try await endClient(running)
    } catch {
        if case .success = outcome { outcome = .failure(error) }
    }
    return try outcome.get()
}

/// Cancels a `PostgresClient.run()` task and waits (at most 30 s) for it to end, so that no connection is still
/// closing when the test goes on, its server is removed or the process exits: the replica processes that exited with
/// a connection closing left NIO's objects of that channel to LeakSanitizer.
func endClient(_ running: Task<Void, Never>) async throws {
    running.cancel()
    try await step("closing the client's connections", within: .seconds(30)) { await running.value }
}

/// The database server's clock (`now()`), whole seconds only when `wholeSeconds` is set: tests that write timestamps
/// the server compares with `now()` take them from there, whatever this process's clock reads.
func serverNow(on client: PostgresClient, wholeSeconds: Bool = false) async throws -> Date {
    try await step("reading the server's clock") {
        let query: PostgresQuery =
            wholeSeconds
            ? "SELECT floor(extract(epoch FROM now()))::float8" : "SELECT extract(epoch FROM now())::float8"
        var seconds = 0.0
        for try await value in try await client.query(query).decode(Double.self) { seconds = value }
        return Date(timeIntervalSince1970: seconds)
    }
}

/// The first column of every row of `query`, as integers.
func integers(_ query: PostgresQuery, on client: PostgresClient) async throws -> [Int64] {
    try await step("reading integers") {
        var values: [Int64] = []
        for try await value in try await client.query(query).decode(Int64.self) { values.append(value) }
        return values
    }
}

/// Waits (bounded, as the named step) until `query`, a count, reads at least `count`. A query that fails (the
/// database restarting, the pool reconnecting) counts as not yet: tests wait on what the replicas did, not on a
/// fixed time that a loaded machine or a sanitizer can outlast.
func waitUntil(
    _ name: String, count query: PostgresQuery, reaches count: Int64, on client: PostgresClient,
    within limit: Duration = .seconds(180)
) async throws {
    try await step(name, within: limit) {
        while true {
            var value: Int64 = 0
            do {
                for try await read in try await client.query(query).decode(Int64.self) { value = read }
            } catch {
                value = 0
            }
            if value >= count { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
#endif
