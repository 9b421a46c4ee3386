#if Postgres
import Foundation
import Logging
import TempoJobs
import TempoPostgres
import Testing

/// Cursors live in the database, shared by replicas, and never move back.
@Suite(.enabled(if: PostgresServer.enabled, PostgresServer.skipMessage))
struct StoreTests {
    @Test func aSavedCursorIsReadBackByAnotherStoreAndAnEarlierDateDoesNotReplaceIt() async throws {
        try await withMigratedServer { _, client in
            let first = try PostgresJobStore(client: client, logger: Logger(label: "a"))
            let second = try PostgresJobStore(client: client, logger: Logger(label: "b"))
            #expect(try await first.cursor(for: "report") == nil)
            let date = Date(timeIntervalSince1970: 1_800_000_000.25)
            try await first.save(JobCursor(lastDate: date), for: "report")
            #expect(try await second.cursor(for: "report") == JobCursor(lastDate: date))
            try await second.save(JobCursor(lastDate: date - 60), for: "report")
            #expect(try await first.cursor(for: "report")?.lastDate == date)
            #expect(try await first.cursor(for: "other") == nil)
        }
    }

    @Test func badRetrySettingsThrowNamingTheValue() async throws {
        try await withMigratedServer { _, client in
            let error = #expect(throws: PostgresJobsError.self) {
                try PostgresJobStore(client: client, retry: PostgresRetry(attempts: 0), logger: Logger(label: "a"))
            }
            #expect(error?.message.contains("not 0") == true)
        }
    }
}
#endif
