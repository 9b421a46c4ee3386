#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres
import Testing

extension PostgresTests {
    /// Cursors live in the database, shared by replicas, and never move back.
    @Suite struct StoreTests {
        @Test func aSavedCursorIsReadBackByAnotherStoreAndAnEarlierDateDoesNotReplaceIt() async throws {
            try await withDatabase { _, client in
                let first = try PostgresJobStore(client: client, logger: Logger(label: "a"))
                let second = try PostgresJobStore(client: client, logger: Logger(label: "b"))
                let date = Date(timeIntervalSince1970: 1_800_000_000.25)
                #expect(try await step("reading a missing cursor") { try await first.cursor(for: "report") } == nil)
                try await step("saving") { try await first.save(JobCursor(lastDate: date), for: "report") }
                #expect(
                    try await step("reading it from another store") { try await second.cursor(for: "report") }
                        == JobCursor(lastDate: date))
                try await step("saving an earlier date") {
                    try await second.save(JobCursor(lastDate: date - 60), for: "report")
                }
                #expect(try await step("reading again") { try await first.cursor(for: "report")?.lastDate } == date)
                #expect(try await step("reading another job") { try await first.cursor(for: "other") } == nil)
            }
        }

        @Test func savingWithAHeldClaimFinishesItAndWritesTheCursorInOneStatement() async throws {
            try await withDatabase { _, client in
                let store = try PostgresJobStore(client: client, logger: Logger(label: "a"))
                let coordinator = try PostgresJobCoordinator(client: client, replica: "a")
                let date = Date(timeIntervalSince1970: 1_800_000_000.25)
                let claim = try #require(
                    try await step("claiming") {
                        try await coordinator.claim(job: "report", plannedDate: date, logger: Logger(label: "a"))
                    })
                try await step("saving, releasing the claim") {
                    try await store.save(JobCursor(lastDate: date), for: "report", releasing: claim, succeeded: false)
                }
                // One statement: no separate release (an UPDATE) nor cursor write (an INSERT).
                #expect(try await statementCalls("UPDATE tempo_claims SET finished_at%", on: client) == 0)
                #expect(try await statementCalls("INSERT INTO tempo_cursors%", on: client) == 0)
                #expect(try await statementCalls("WITH finished AS%", on: client) == 1)
                #expect(
                    try await integers(
                        "SELECT count(*) FROM tempo_claims WHERE finished_at IS NOT NULL AND NOT succeeded", on: client)
                        == [1])
                #expect(
                    try await step("reading the cursor") { try await store.cursor(for: "report") }
                        == JobCursor(lastDate: date))
            }
        }

        @Test func savingWithAClaimWhoseLeaseRanOutLeavesItUnfinishedAndWritesTheCursor() async throws {
            try await withDatabase { _, client in
                let store = try PostgresJobStore(client: client, logger: Logger(label: "a"))
                let coordinator = try PostgresJobCoordinator(client: client, replica: "a")
                let date = Date(timeIntervalSince1970: 1_800_000_000.25)
                let claim = try #require(
                    try await step("claiming") {
                        try await coordinator.claim(job: "report", plannedDate: date, logger: Logger(label: "a"))
                    })
                try await step("expiring the lease, then saving") {
                    try await client.query("UPDATE tempo_claims SET lease_until = now() - interval '1 second'")
                    try await store.save(JobCursor(lastDate: date), for: "report", releasing: claim, succeeded: true)
                }
                #expect(
                    try await integers("SELECT count(*) FROM tempo_claims WHERE finished_at IS NULL", on: client) == [1]
                )
                #expect(
                    try await step("reading the cursor") { try await store.cursor(for: "report") }
                        == JobCursor(lastDate: date))
            }
        }

        @Test func badRetrySettingsThrowNamingTheValue() async throws {
            try await withDatabase(migrated: false) { _, client in
                let error = #expect(throws: JobError.self) {
                    try PostgresJobStore(client: client, retry: PostgresRetry(attempts: 0), logger: Logger(label: "a"))
                }
                #expect(error?.message.contains("not 0") == true)
                let timeout = #expect(throws: JobError.self) {
                    try PostgresJobStore(
                        client: client, retry: PostgresRetry(attemptTimeout: .zero), logger: Logger(label: "a"))
                }
                #expect(timeout?.message.contains("attempt timeout") == true)
            }
        }
    }
}

/// A database that never answers: no server behind the socket, so postgres-nio's pool keeps the query waiting for a
/// connection. Needs no PostgreSQL binaries.
@Suite struct NoAnswerTests {
    @Test func aReadWithNoAnswerFailsAsUnreadableNamingTheStoreTimeoutNotARunTimeout() async throws {
        let socket = "\(FileManager.default.temporaryDirectory.path)/no-server-\(UUID().uuidString)/.s.PGSQL.5432"
        let configuration = PostgresClient.Configuration(
            unixSocketPath: socket, username: "tempo", password: nil, database: "none")
        try await withClient(configuration) { client in
            let store = try PostgresJobStore(
                client: client, retry: PostgresRetry(attempts: 1, attemptTimeout: .milliseconds(100)),
                logger: Logger(label: "no-answer", factory: { _ in SwiftLogNoOpLogHandler() }))
            let error = await #expect(throws: JobError.self) { try await store.cursor(for: "report") }
            #expect(error?.code == .unreadable)
            #expect(error?.job == "report")
            #expect(
                error?.message.contains("storeTimedOut: reading a cursor got no answer") == true,
                "\(String(describing: error))")
        }
    }
}
#endif
