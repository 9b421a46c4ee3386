#if Postgres
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import TempoJobs
import TempoPlans
import TempoPostgres
import Testing

extension PostgresTests {
    /// Pause, resume and run-now across three replicas (three schedulers in this process, each with its own
    /// coordinator and store), and the history of `tempo_runs` (issue #45).
    @Suite struct ControlTests {
        static let lease = Duration.seconds(2)

        /// A replica running "tick" and "other" every 200 ms (dates on a grid since the epoch, the same on every
        /// replica); each run inserts a row (job, date, replica) in `ran`.
        static func replica(
            _ name: String, client: PostgresClient, historyLimit: Int = 100
        ) throws -> (JobScheduler<ContinuousClock>, PostgresJobStore) {
            let logger = Logger(label: name)
            let store = try PostgresJobStore(
                client: client, historyLimit: historyLimit, controlInterval: .milliseconds(500), logger: logger)
            let scheduler = JobScheduler(
                store: store,
                coordinator: try PostgresJobCoordinator(
                    client: client, replica: name, configuration: .init(lease: lease)),
                logger: logger, clock: ContinuousClock())
            let schedule = JobSchedule.plan(try Plan.every(.milliseconds(200), anchor: Date(timeIntervalSince1970: 0)))
            for job in ["tick", "other"] {
                try scheduler.register(job, schedule) { context in
                    try await client.query(
                        "INSERT INTO ran VALUES (\(job), \(context.plannedDate), \(name))", logger: logger)
                }
            }
            return (scheduler, store)
        }

        static func count(_ sql: String, _ date: Date? = nil, on client: PostgresClient) async throws -> Int64 {
            var binds = PostgresBindings()
            if let date { binds.append(date) }
            return try await integers(PostgresQuery(unsafeSQL: sql, binds: binds), on: client)[0]
        }

        /// Waits (at most `limit`, a bound that only catches a hang) until `condition` holds.
        static func wait(
            _ what: String, within limit: Duration = .seconds(60),
            _ condition: @escaping @Sendable () async throws -> Bool
        ) async throws {
            try await step(what, within: limit) {
                while try await !condition() { try await Task.sleep(for: .milliseconds(50)) }
            }
        }

        @Test func pauseOnOneReplicaStopsTheJobOnAllWithinOneLeaseAndRunNowRunsOnceAcrossThree() async throws {
            try await withDatabase(limit: .seconds(240)) { _, client in
                try await client.query(
                    "CREATE TABLE ran (job text NOT NULL, planned_at timestamptz NOT NULL, replica text NOT NULL)")
                let replicas = try ["a", "b", "c"].map { try Self.replica($0, client: client) }
                let (storeA, storeB) = (replicas[0].1, replicas[1].1)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (scheduler, _) in replicas { group.addTask { try await scheduler.run() } }
                    defer { for (scheduler, _) in replicas { scheduler.triggerGracefulShutdown() } }
                    try await Self.wait("tick running") {
                        try await Self.count("SELECT count(*) FROM ran WHERE job = 'tick'", on: client) >= 5
                    }
                    try await storeA.pause(job: "tick")
                    try await Task.sleep(for: Self.lease)
                    let honoured = Date()
                    try await Task.sleep(for: Self.lease)
                    let late = try await Self.count(
                        "SELECT count(*) FROM ran WHERE job = 'tick' AND planned_at > $1", honoured, on: client)
                    let other = try await Self.count(
                        "SELECT count(*) FROM ran WHERE job = 'other' AND planned_at > $1", honoured, on: client)
                    #expect(late == 0, "tick ran \(late) dates on some replica a lease after the pause")
                    #expect(other >= 3, "the other job ran \(other) dates meanwhile")
                    let overview = try #require(try await storeB.jobOverviews().first { $0.name == "tick" })
                    #expect(overview.state == .paused && overview.stateChangedAt != nil)

                    let date = try await storeB.requestRun(of: "tick")
                    try await Self.wait("the run-now run recorded") {
                        try await Self.count(
                            "SELECT count(*) FROM tempo_runs WHERE job = 'tick' AND trigger = 'runNow'", on: client) > 0
                    }
                    try await Task.sleep(for: Self.lease)  // every replica read the request meanwhile
                    #expect(
                        try await Self.count("SELECT count(*) FROM ran WHERE planned_at = $1", date, on: client) == 1)
                    #expect(try await Self.count("SELECT count(*) FROM tempo_run_requests", on: client) == 0)
                    #expect(
                        try await Self.count(
                            "SELECT count(*) FROM ran WHERE job = 'tick' AND planned_at > $1", honoured, on: client)
                            == 1)

                    try await storeA.resume(job: "tick")
                    let resumed = Date()
                    try await Self.wait("tick running again") {
                        try await Self.count(
                            "SELECT count(*) FROM ran WHERE job = 'tick' AND planned_at > $1", resumed, on: client) >= 3
                    }
                }
                // Each run once in the history, with the replica that ran it.
                let runs = try await Self.count("SELECT count(*) FROM ran", on: client)
                #expect(try await Self.count("SELECT count(*) FROM tempo_runs", on: client) == runs)
                #expect(
                    try await Self.count(
                        "SELECT count(*) FROM (SELECT DISTINCT job, planned_at FROM tempo_runs) d", on: client) == runs)
                #expect(
                    try await Self.count(
                        """
                        SELECT count(*) FROM tempo_runs h JOIN ran r ON r.job = h.job AND r.planned_at = h.planned_at \
                        AND r.replica = h.replica
                        """, on: client) == runs)
                let stats = replicas.compactMap { $0.0.stats(for: "tick") }
                #expect(stats.map(\.skippedWhilePaused).reduce(0, +) > 0, "\(stats)")
                #expect(stats.map(\.runNow).reduce(0, +) >= 1, "\(stats)")
                let detail = try #require(try await storeA.jobDetail(named: "tick", historyLimit: 3))
                #expect(detail.history.count == 3 && detail.overview.state == .active)
                // Newest end first (`JobDetail.history`), whichever replica's write arrived first.
                #expect(detail.history.map(\.ended) == detail.history.map(\.ended).sorted(by: >))
            }
        }

        @Test func historyStaysBoundedPerJob() async throws {
            try await withDatabase(limit: .seconds(120)) { _, client in
                try await client.query(
                    "CREATE TABLE ran (job text NOT NULL, planned_at timestamptz NOT NULL, replica text NOT NULL)")
                let (scheduler, store) = try Self.replica("only", client: client, historyLimit: 5)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await scheduler.run() }
                    defer { scheduler.triggerGracefulShutdown() }
                    try await Self.wait("15 runs of tick") {
                        try await Self.count("SELECT count(*) FROM ran WHERE job = 'tick'", on: client) >= 15
                    }
                }
                #expect(try await Self.count("SELECT count(*) FROM tempo_runs WHERE job = 'tick'", on: client) == 5)
                let detail = try #require(try await store.jobDetail(named: "tick", historyLimit: 100))
                let latest = try await Self.count(
                    "SELECT (extract(epoch FROM max(planned_at)) * 1000)::bigint FROM ran WHERE job = 'tick'",
                    on: client)
                #expect(detail.history.count == 5)
                #expect(Int64((detail.history[0].plannedDate.timeIntervalSince1970 * 1000).rounded()) == latest)
                let unknown = await #expect(throws: JobError.self) { try await store.pause(job: "nope") }
                #expect(unknown?.code == .unknownJob)
            }
        }
    }
}
#endif
