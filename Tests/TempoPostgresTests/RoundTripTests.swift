#if Postgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import TempoJobs
import TempoPostgres
import Testing

extension PostgresTests {
    /// The database statements a date costs its winner, counted by `pg_stat_statements`.
    @Suite struct RoundTripTests {
        /// Statements that do not come with each date: the periodic read of abandoned dates, lease renewals, the
        /// removal of old claims, the cursor read at start, and this test's own reads of the statistics.
        static let notPerDate = [
            "SELECT job, planned_at FROM tempo_claims", "UPDATE tempo_claims SET lease_until",
            "DELETE FROM tempo_claims",
            "SELECT last_date", "CREATE EXTENSION", "SELECT queryid",
            // Issue #45: the control of all jobs, read every control interval (not per date), and a job's next dates,
            // published at the start and once per 15 dates (by every replica, off the runs' path).
            "SELECT j.job, j.state", "INSERT INTO tempo_jobs",
        ]

        @Test func anAtLeastOnceDateCostsItsWinnerAtMostTwoStatements() async throws {
            try await withDatabase { _, client in
                let logger = Logger(label: "round-trips")
                let scheduler = JobScheduler(
                    store: try PostgresJobStore(client: client, logger: logger),
                    coordinator: try PostgresJobCoordinator(client: client, replica: "only"),
                    logger: logger, clock: ContinuousClock())
                let runs = Atomic(0)
                try scheduler.register("tick", .every(.milliseconds(100))) { _ in
                    runs.add(1, ordering: .relaxed)
                }
                _ = try await statementCalls("%", on: client)  // creates the extension
                let before = try await Self.calls(on: client)
                try await step("running until 20 dates ran, then shutting down", within: .seconds(120)) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await scheduler.run() }
                        while runs.load(ordering: .relaxed) < 20 { try await Task.sleep(for: .milliseconds(20)) }
                        scheduler.triggerGracefulShutdown()
                        try await group.waitForAll()
                    }
                }
                let after = try await Self.calls(on: client)
                let dates = try #require(scheduler.stats(for: "tick")).succeeded
                var perDate: Int64 = 0
                var lines: [String] = []
                for (query, calls) in after.sorted(by: { $0.key < $1.key }) {
                    let ran = calls - (before[query] ?? 0)
                    guard ran > 0 else { continue }
                    let counted = !Self.notPerDate.contains { query.hasPrefix($0) }
                    if counted { perDate += ran }
                    lines.append("\(ran)\t\(counted ? "counted" : "not per date")\t\(query.prefix(90))")
                }
                let report = "\(dates) dates, \(perDate) statements counted:\n" + lines.joined(separator: "\n")
                print(report)
                #expect(dates >= 20)
                #expect(perDate <= 2 * Int64(dates), "\(report)")
                // Every date was finished, and the cursor is the last one.
                #expect(
                    try await integers("SELECT count(*) FROM tempo_claims WHERE finished_at IS NULL", on: client) == [0]
                )
                #expect(try await integers("SELECT count(*) FROM tempo_claims", on: client) == [Int64(dates)])
                #expect(
                    try await integers(
                        """
                        SELECT count(*) FROM tempo_cursors c JOIN tempo_claims t ON t.job = c.job \
                        AND t.planned_at = c.last_date WHERE t.planned_at = (SELECT max(planned_at) FROM tempo_claims)
                        """, on: client) == [1])
            }
        }

        /// The calls of each statement of this database so far, by text.
        static func calls(on client: PostgresClient) async throws -> [String: Int64] {
            try await step("reading pg_stat_statements") {
                var calls: [String: Int64] = [:]
                for try await (_, query, count) in try await client.query(
                    """
                    SELECT queryid, query, calls FROM pg_stat_statements \
                    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                    """
                ).decode((Int64, String, Int64).self) {
                    calls[query, default: 0] += count
                }
                return calls
            }
        }
    }
}
#endif
