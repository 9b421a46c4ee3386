#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres
import Testing

extension PostgresTests {
    /// Finished and abandoned claims older than the retention are removed in batches; their dates are never claimed
    /// again; the read of abandoned dates stays fast on a large table.
    @Suite struct RetentionTests {
        static let logger = Logger(label: "test")
        static let day = Duration.seconds(86_400)

        /// Old finished claims go in batches of 1,000, then old abandoned ones (unfinished, their lease out: too old to
        /// be claimed or listed, nothing would ever finish them); an old claim whose lease holds (its run goes on) and
        /// recent claims stay.
        @Test func oldFinishedAndAbandonedClaimsAreRemovedInBatchesAndRunningOrRecentOnesKept() async throws {
            try await withDatabase { _, client in
                let coordinator = try PostgresJobCoordinator(
                    client: client, replica: "a", configuration: .init(retention: Self.day))
                try await step("inserting claims: 2,500 old finished, 10 old abandoned, 1 old running, 20 recent") {
                    try await client.query(
                        """
                        INSERT INTO tempo_claims SELECT 'old', now() - interval '26 hours' - i * interval '1 s', i, \
                        'a', now() - interval '26 hours', now() - interval '26 hours', true \
                        FROM generate_series(1, 2500) AS i
                        """)
                    try await client.query(
                        """
                        INSERT INTO tempo_claims SELECT 'old', now() - interval '30 hours' - i * interval '1 s', i, \
                        'a', now() - interval '30 hours', NULL, NULL FROM generate_series(1, 10) AS i
                        """)
                    try await client.query(
                        """
                        INSERT INTO tempo_claims VALUES ('running', now() - interval '30 hours', 1, 'a', \
                        now() + interval '1 minute', NULL, NULL)
                        """)
                    // Within the retention, and within its hour of margin: kept.
                    try await client.query(
                        """
                        INSERT INTO tempo_claims SELECT 'recent', now() - interval '24 hours 30 minutes' \
                        + i * interval '1 h', i, 'a', now(), now(), true FROM generate_series(0, 19) AS i
                        """)
                }
                let calls = try await statementCalls("DELETE FROM tempo_claims%", on: client)
                let removed = await coordinator.removeExpiredClaims(logger: Self.logger)
                #expect(removed == 2510)
                // 1,000 rows per statement: 1,000, 1,000, 500 finished; 10 abandoned.
                #expect(try await statementCalls("DELETE FROM tempo_claims%", on: client) - calls == 4)
                #expect(try await integers("SELECT count(*) FROM tempo_claims WHERE job = 'old'", on: client) == [0])
                #expect(try await integers("SELECT count(*) FROM tempo_claims", on: client) == [21])
            }
        }

        @Test func aDateOlderThanTheRetentionIsNeverClaimedNorListedAsAbandoned() async throws {
            try await withDatabase { _, client in
                let coordinator = try PostgresJobCoordinator(
                    client: client, replica: "a", configuration: .init(retention: .seconds(3600)))
                let now = Date()
                // Read on the server's clock: two hours before it is past the 1-hour retention, whatever our clock.
                let serverTime = try await serverNow(on: client)
                let old = serverTime - 7200
                let token = try await step("claiming a date 2 hours old") {
                    try await coordinator.claim(job: "report", plannedDate: old, logger: Self.logger)?.fencingToken
                }
                #expect(token == nil)
                #expect(try await integers("SELECT count(*) FROM tempo_claims", on: client) == [0])
                // An abandoned claim of an old date (its row kept) is neither taken over nor listed.
                try await step("inserting an abandoned claim 2 hours old") {
                    try await client.query(
                        """
                        INSERT INTO tempo_claims VALUES ('report', \(old), 1, 'dead', now() - interval '1 h', NULL, \
                        NULL)
                        """)
                }
                let again = try await step("claiming it again") {
                    try await coordinator.claim(job: "report", plannedDate: old, logger: Self.logger)?.fencingToken
                }
                #expect(again == nil)
                #expect(await coordinator.abandonedDates(job: "report", before: now + 3600, logger: Self.logger) == [])
                // A date within the retention is claimed.
                let recent = try await step("claiming a date 30 minutes old") {
                    try await coordinator.claim(job: "report", plannedDate: serverTime - 1800, logger: Self.logger)
                }
                #expect(recent != nil)
            }
        }

        @Test func claimsStartTheRemovalInTheBackground() async throws {
            try await withDatabase { _, client in
                var configuration = PostgresJobCoordinator.Configuration(retention: Self.day)
                configuration.retentionInterval = .zero
                let coordinator = try PostgresJobCoordinator(client: client, replica: "a", configuration: configuration)
                try await step("inserting 1,500 old finished claims") {
                    try await client.query(
                        """
                        INSERT INTO tempo_claims SELECT 'old', now() - interval '3 days' - i * interval '1 s', i, 'a', \
                        now() - interval '3 days', now() - interval '3 days', true FROM generate_series(1, 1500) AS i
                        """)
                }
                let claim = try await step("claiming a date") {
                    try await coordinator.claim(job: "report", plannedDate: Date(), logger: Self.logger)
                }
                #expect(claim != nil)
                try await step("waiting for the old claims to be removed", within: .seconds(60)) {
                    while try await integers("SELECT count(*) FROM tempo_claims WHERE job = 'old'", on: client) != [0] {
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                #expect(try await integers("SELECT count(*) FROM tempo_claims", on: client) == [1])
            }
        }

        @Test func aRetentionUnderAnHourThrowsNamingIt() async throws {
            try await withDatabase(migrated: false) { _, client in
                let error = #expect(throws: JobError.self) {
                    try PostgresJobCoordinator(
                        client: client, replica: "a", configuration: .init(retention: .seconds(3599)))
                }
                #expect(error?.code == .invalidConfiguration)
                #expect(
                    error?.message.contains("retention must be at least 1 hour, not 3599") == true,
                    "\(String(describing: error))")
            }
        }

        /// The read of abandoned dates uses the partial index: with 2,000,000 finished claims, it stays about as fast
        /// as with none (bounds generous: a loaded machine).
        @Test func theAbandonedDatesReadStaysFastWithManyFinishedClaims() async throws {
            try await withDatabase(limit: .seconds(600)) { _, client in
                let query = PostgresJobCoordinator.abandonedDatesQuery(retention: 30 * 86_400_000_000)
                try await step("inserting 50 abandoned claims") {
                    try await client.query(
                        """
                        INSERT INTO tempo_claims SELECT 'job' || (i % 5), now() - i * interval '1 minute', i, 'a', \
                        now() - interval '1 minute', NULL, NULL FROM generate_series(1, 50) AS i
                        """)
                    try await client.query("ANALYZE tempo_claims")
                }
                let small = try await medianTime(of: query, on: client)
                try await step("inserting 2,000,000 finished claims", within: .seconds(480)) {
                    try await client.query(
                        """
                        INSERT INTO tempo_claims SELECT 'job' || (i % 5), now() - i * interval '1 second' \
                        - interval '1 millisecond', i + 100, 'a', now(), now(), true \
                        FROM generate_series(1, 2000000) AS i
                        """)
                    try await client.query("ANALYZE tempo_claims")
                }
                let plan = try await step("explaining the read") {
                    var lines: [String] = []
                    var explain = query
                    explain.sql = "EXPLAIN " + explain.sql
                    for try await line in try await client.query(explain).decode(String.self) { lines.append(line) }
                    return lines.joined(separator: "\n")
                }
                #expect(plan.contains("tempo_claims_unfinished"), "\(plan)")
                let large = try await medianTime(of: query, on: client)
                print("abandoned dates read, median of 21: \(small) with 50 rows, \(large) with 2,000,050 rows")
                #expect(large < small * 20 + .milliseconds(50), "\(small) with 50 rows, \(large) with 2,000,050")
            }
        }

        /// The median time of 21 runs of `query`, all rows read.
        private func medianTime(of query: PostgresQuery, on client: PostgresClient) async throws -> Duration {
            try await step("timing the read") {
                var times: [Duration] = []
                for _ in 0..<21 {
                    let start = ContinuousClock.now
                    for try await _ in try await client.query(query).decode((String, Date).self) {}
                    times.append(start.duration(to: .now))
                }
                return times.sorted()[10]
            }
        }
    }
}

/// How many times the statements whose text is like `pattern` ran in `client`'s database (`pg_stat_statements`,
/// created here if needed; the server loads it).
func statementCalls(_ pattern: String, on client: PostgresClient) async throws -> Int64 {
    try await step("counting statements like \(pattern)") {
        try await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        var calls: Int64 = 0
        for try await value in try await client.query(
            """
            SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements WHERE query LIKE \(pattern) \
            AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        ).decode(Int64.self) {
            calls = value
        }
        return calls
    }
}
#endif
