#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPlans
import TempoPostgres
import Testing

/// Several schedulers sharing one database, as replicas of one app.
@Suite(.enabled(if: PostgresServer.enabled, PostgresServer.skipMessage))
struct ReplicaTests {
    @Test func threeSkewedReplicasRunEveryPlannedDateAtMostOnceAndTogetherRunThemAll() async throws {
        try await withMigratedServer { _, client in
            try await client.query(
                """
                CREATE TABLE results (job text NOT NULL, planned_at timestamptz NOT NULL, replica text NOT NULL, \
                PRIMARY KEY (job, planned_at))
                """)
            // Dates on a grid that does not depend on when a replica starts: every 200 ms since the epoch.
            let schedule = JobSchedule.plan(try Plan.every(.milliseconds(200), anchor: Date(timeIntervalSince1970: 0)))
            let skews: [Double] = [-2, 0, 2]
            var schedulers: [JobScheduler<ContinuousClock>] = []
            for (index, skew) in skews.enumerated() {
                let replica = "replica-\(index)"
                let logger = Logger(label: replica)
                let scheduler = JobScheduler(
                    store: try PostgresJobStore(client: client, logger: logger),
                    coordinator: try PostgresJobCoordinator(client: client, replica: replica),
                    logger: logger, wallClock: { Date() + skew }, clock: ContinuousClock())
                try scheduler.register("tick", schedule: schedule) { context in
                    // The write checks the run's token in the same statement (fencing).
                    try await client.query(
                        """
                        INSERT INTO results SELECT 'tick', \(context.plannedDate), \(replica) WHERE EXISTS ( \
                        SELECT 1 FROM tempo_claims WHERE job = 'tick' AND planned_at = \(context.plannedDate) AND \
                        token = \(context.claim.fencingToken) AND lease_until > now())
                        """)
                }
                schedulers.append(scheduler)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for scheduler in schedulers { group.addTask { try await scheduler.run() } }
                // Real time, as replicas live; the assertions below hold however loaded the machine is.
                try await Task.sleep(for: .seconds(5))
                for scheduler in schedulers { scheduler.triggerGracefulShutdown() }
                try await group.waitForAll()
            }
            let stats = schedulers.compactMap { $0.stats(for: "tick") }
            let succeeded = stats.map(\.succeeded).reduce(0, +)
            let rows = try await integers("SELECT count(*) FROM results", on: client)[0]
            let claims = try await integers("SELECT count(*) FROM tempo_claims", on: client)[0]
            // Each run that succeeded wrote its date's row; a second run of a date would have failed on the key.
            #expect(stats.map(\.failed).reduce(0, +) == 0)
            #expect(Int64(succeeded) == rows)
            #expect(rows == claims)
            // 5 s of 200 ms dates, started by the replica 2 s ahead: far more than 10 dates whatever the load.
            #expect(rows >= 10)
            // The replicas behind found dates already claimed by the one ahead.
            #expect(stats.map(\.claimedElsewhere).reduce(0, +) > 0)
            // The shared cursor is the latest date run.
            let cursor = try await PostgresJobStore(client: client, logger: Logger(label: "check")).cursor(for: "tick")
            let latest = try await integers(
                "SELECT (extract(epoch FROM max(planned_at)) * 1000)::bigint FROM results", on: client)[0]
            #expect(cursor.map { Int64(($0.lastDate.timeIntervalSince1970 * 1000).rounded()) } == latest)
        }
    }
}
#endif
