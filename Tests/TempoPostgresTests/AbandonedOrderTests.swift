#if Postgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import TempoJobs
import TempoPlans
import TempoPostgres
import Testing

extension PostgresTests {
    /// Abandoned dates whose leases run out in the opposite order of the dates (a replica renews the claim of a run in
    /// flight, so an earlier date can outlive a later one): each runs once on the replica that goes on.
    @Suite struct AbandonedOrderTests {
        static let logger = Logger(label: "test")

        @Test func anEarlierDateAbandonedAfterALaterOneRunsToo() async throws {
            try await withDatabase { _, client in
                // The server's clock, on the second: the dead replica's dates are on the job's grid.
                let now = try await serverNow(on: client, wholeSeconds: true)
                let earlier = now - 3
                let later = now - 2
                // A dead replica's two claims: the later date's lease ran out already, the earlier date's runs out
                // in 3 s (its run was renewed longer).
                try await step("inserting the dead replica's claims") {
                    try await client.query(
                        """
                        INSERT INTO tempo_claims VALUES ('tick', \(earlier), nextval('tempo_claim_tokens'), 'dead', \
                        now() + interval '3 s', NULL, NULL)
                        """)
                    try await client.query(
                        """
                        INSERT INTO tempo_claims VALUES ('tick', \(later), nextval('tempo_claim_tokens'), 'dead', \
                        now() - interval '1 s', NULL, NULL)
                        """)
                }
                let ran = Mutex<[Date]>([])
                let scheduler = JobScheduler(
                    coordinator: try PostgresJobCoordinator(
                        client: client, replica: "survivor", configuration: .init(lease: .seconds(3))),
                    logger: Self.logger, clock: ContinuousClock())
                let schedule = JobSchedule.plan(try Plan.every(.seconds(1), anchor: Date(timeIntervalSince1970: 0)))
                try scheduler.register("tick", schedule, options: JobOptions(catchUp: .each(within: .seconds(120)))) {
                    context in
                    ran.withLock { $0.append(context.plannedDate) }
                }
                // Until both dates ran (about 4 s: the earlier lease's 3 s, then a read of the abandoned dates, one
                // per second), for at most 60 s on a loaded machine.
                try await step("running until both abandoned dates ran", within: .seconds(90)) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await scheduler.run() }
                        let deadline = ContinuousClock.now + .seconds(60)
                        while ContinuousClock.now < deadline {
                            let dates = ran.withLock { $0 }
                            if dates.contains(earlier) && dates.contains(later) { break }
                            try await Task.sleep(for: .milliseconds(100))
                        }
                        scheduler.triggerGracefulShutdown()
                        try await group.waitForAll()
                    }
                }
                let dates = ran.withLock { $0 }
                #expect(dates.filter { $0 == later }.count == 1, "\(dates.map(\.timeIntervalSince1970))")
                #expect(dates.filter { $0 == earlier }.count == 1, "\(dates.map(\.timeIntervalSince1970))")
                // The later date ran first (its lease ran out first), the earlier one after it.
                #expect(dates.firstIndex(of: later)! < dates.firstIndex(of: earlier)!)
                #expect(
                    try await integers(
                        """
                        SELECT count(*) FROM tempo_claims WHERE job = 'tick' AND planned_at IN (\(earlier), \(later)) \
                        AND finished_at IS NOT NULL AND replica = 'survivor'
                        """, on: client) == [2])
            }
        }

        /// Under `once`, three dates a dead replica abandoned: the survivor runs the latest, and marks the two others
        /// finished without running them, so that a replica started afterwards (a restart) finds none of them: it
        /// runs none of the three. (Before, the two stayed unfinished, and a restart ran the latest of them.)
        @Test func underOnceTheAbandonedDatesNotRunAreFinishedAndARestartRunsNoneOfThem() async throws {
            try await withDatabase { _, client in
                let now = try await serverNow(on: client, wholeSeconds: true)
                let dead = [now - 4, now - 3, now - 2]
                try await step("inserting the dead replica's claims, their leases out") {
                    for date in dead {
                        try await client.query(
                            """
                            INSERT INTO tempo_claims VALUES ('tick', \(date), nextval('tempo_claim_tokens'), 'dead', \
                            now() - interval '1 s', NULL, NULL)
                            """)
                    }
                }
                let ran = Mutex<[Date]>([])
                // Runs a replica until `until` holds (at most 60 s: a loaded machine), then stops it.
                func runReplica(_ name: String, until done: @escaping @Sendable () -> Bool) async throws {
                    let scheduler = JobScheduler(
                        coordinator: try PostgresJobCoordinator(
                            client: client, replica: name, configuration: .init(lease: .seconds(3))),
                        logger: Self.logger, clock: ContinuousClock())
                    let schedule = JobSchedule.plan(
                        try Plan.every(.seconds(1), anchor: Date(timeIntervalSince1970: 0)))
                    try scheduler.register("tick", schedule, options: JobOptions(catchUp: .once)) { context in
                        ran.withLock { $0.append(context.plannedDate) }
                    }
                    try await step("running replica \(name)", within: .seconds(90)) {
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask { try await scheduler.run() }
                            let deadline = ContinuousClock.now + .seconds(60)
                            while ContinuousClock.now < deadline, !done() {
                                try await Task.sleep(for: .milliseconds(100))
                            }
                            scheduler.triggerGracefulShutdown()
                            try await group.waitForAll()
                        }
                    }
                }
                try await runReplica("survivor") { ran.withLock { $0.contains(dead[2]) } }
                let first = ran.withLock { $0 }
                #expect(first.filter { dead.contains($0) } == [dead[2]], "\(first.map(\.timeIntervalSince1970))")
                #expect(
                    try await integers(
                        """
                        SELECT count(*) FROM tempo_claims WHERE job = 'tick' AND replica = 'dead' \
                        AND planned_at IN (\(dead[0]), \(dead[1])) AND finished_at IS NOT NULL AND succeeded IS NULL
                        """, on: client) == [2])
                // The restart: a new coordinator (no cache) and scheduler, for a few of its own dates.
                let restartedAt = ran.withLock { $0.count }
                try await runReplica("restarted") { ran.withLock { $0.count } >= restartedAt + 3 }
                let second = ran.withLock { Array($0[restartedAt...]) }
                #expect(second.filter { dead.contains($0) }.isEmpty, "\(second.map(\.timeIntervalSince1970))")
                #expect(
                    try await integers(
                        "SELECT count(*) FROM tempo_claims WHERE job = 'tick' AND finished_at IS NULL", on: client
                    )
                    .allSatisfy { $0 <= 1 })
            }
        }
    }
}
#endif
