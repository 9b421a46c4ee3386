#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPlans
import TempoPostgres
import Testing

extension PostgresTests {
    /// The database stopped for seconds under running replicas: the dates whose claims could not be decided meanwhile
    /// go to the job's catch-up policy when it is back, exactly as after a process restart; none runs twice.
    @Suite struct OutageTests {
        @Test func everyDateOfAnOutageRunsOnceWhenTheDatabaseIsBack() async throws {
            // A server of its own: the shared one must stay up for the other tests.
            let server = try await step("starting a server of its own", within: .seconds(300)) {
                try await PostgresServer.start()
            }
            do {
                try await runAcrossAnOutage(of: server)
            } catch {
                await server.remove()
                throw error
            }
            await server.remove()
        }

        private static let interval = 0.5

        /// A reading in seconds since 1970, rounded to the job's half-second grid.
        private static func onGrid(_ seconds: Double) -> Double { (seconds * 2).rounded() / 2 }

        /// The grid's dates from `first` through `last`.
        private static func grid(from first: Double, through last: Double) -> [Double] {
            stride(from: first, through: last, by: interval).map(onGrid)
        }

        private func runAcrossAnOutage(of server: PostgresServer) async throws {
            try await withClient(server.configuration(database: "postgres")) { client in
                try await step("migrating") {
                    try await PostgresSchema.migrate(on: client, logger: Logger(label: "test"))
                }
                try await createResultsTable(on: client)
                let log = RecordingLog()
                let schedulers = try ["a", "b"].map { try outageReplica($0, client: client, logger: log.logger) }
                let (stopped, back) = try await step("two replicas across a 6 s outage", within: .seconds(420)) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for scheduler in schedulers { group.addTask { try await scheduler.run() } }
                        // The outage starts once the replicas run dates, however long a loaded machine (or a
                        // sanitizer) takes to start them: a fixed wait here once stopped the server before the
                        // first claim, and the test then saw no outage at all.
                        try await waitUntil(
                            "waiting for the replicas' first dates", count: "SELECT count(*) FROM results",
                            reaches: 3, on: client)
                        let stopped = Date()
                        try await server.stopImmediately()
                        try await Task.sleep(for: .seconds(6))
                        try await server.startAgain()
                        let back = Date()
                        // The replicas work until every date up to the database's return has run (bounded: a
                        // date that never runs is named by the check below).
                        try await waitForEveryDate(through: back.timeIntervalSince1970, on: client)
                        for scheduler in schedulers { scheduler.triggerGracefulShutdown() }
                        try await group.waitForAll()
                        return (stopped, back)
                    }
                }
                let dates = try await step("reading the results") {
                    var dates: [Double] = []
                    let rows = try await client.query(
                        "SELECT extract(epoch FROM planned_at)::float8 FROM results ORDER BY planned_at")
                    for try await value in rows.decode(Double.self) { dates.append(value) }
                    return dates
                }
                let first = try #require(dates.first)
                // Every date of the grid from the first run to the database's return ran, the outage's included.
                let expected = Self.grid(from: first, through: back.timeIntervalSince1970)
                let ran = Set(dates.map(Self.onGrid))
                let lost = expected.filter { !ran.contains($0) }
                #expect(
                    lost.isEmpty,
                    """
                    dates lost: \(lost) (outage \(stopped.timeIntervalSince1970)...\(back.timeIntervalSince1970)); \
                    log: \(log.lines(containing: "job").suffix(40).joined(separator: "\n"))
                    """)
                #expect(expected.contains { $0 > stopped.timeIntervalSince1970 + 1 && $0 < back.timeIntervalSince1970 })
                #expect(log.count("left to the catch-up policy") > 0, "no claim failed during the outage")
                // Never a second run of a date: the results' primary key would have refused it.
                #expect(log.count("23505") == 0)
            }
        }

        /// The planned dates in the results table (seconds since 1970, on the half-second grid), or none while the
        /// client cannot reach the database.
        private func resultDates(on client: PostgresClient) async -> [Double] {
            do {
                var dates: [Double] = []
                let rows = try await client.query(
                    "SELECT extract(epoch FROM planned_at)::float8 FROM results ORDER BY planned_at")
                for try await value in rows.decode(Double.self) { dates.append(Self.onGrid(value)) }
                return dates
            } catch {
                return []
            }
        }

        /// Waits until every date of the grid from the first result through `last` has run, or 180 s have passed:
        /// then it returns anyway, and the test's check names the dates that did not run.
        private func waitForEveryDate(through last: Double, on client: PostgresClient) async throws {
            let deadline = ContinuousClock.now + .seconds(180)
            while ContinuousClock.now < deadline {
                let dates = await resultDates(on: client)
                if let first = dates.first, Self.grid(from: first, through: last).allSatisfy(Set(dates).contains) {
                    return
                }
                try await Task.sleep(for: .milliseconds(200))
            }
        }

        /// A replica running one job every 0.5 s (on the epoch's grid) with the catch-up policy
        /// `.each(within: 120 s)`, whose body writes its date in a fenced transaction and retries while
        /// the database is down.
        private func outageReplica(_ replica: String, client: PostgresClient, logger: Logger) throws
            -> JobScheduler<ContinuousClock>
        {
            let retry = PostgresRetry(attemptTimeout: .milliseconds(500))
            let scheduler = JobScheduler(
                store: try PostgresJobStore(client: client, retry: retry, logger: logger),
                coordinator: try PostgresJobCoordinator(
                    client: client, replica: replica, configuration: .init(lease: .seconds(2), retry: retry)),
                logger: logger, clock: ContinuousClock())
            let options = JobOptions(
                failure: .retry(RetryPolicy(attempts: 30, backoff: .constant(.milliseconds(500)))),
                catchUp: .each(within: .seconds(120)))
            let schedule = JobSchedule.plan(
                try Plan.every(.milliseconds(500), anchor: Date(timeIntervalSince1970: 0)))
            try scheduler.register("tick", schedule, options: options) { context in
                guard let claim = context.claim as? PostgresJobClaim else {
                    throw JobError(.claimLost, message: "no claim")
                }
                try await claim.withFencedTransaction(logger: logger) { connection in
                    try await connection.query(
                        "INSERT INTO results VALUES ('tick', \(context.plannedDate), \(replica))", logger: logger)
                }
            }
            return scheduler
        }
    }
}
#endif
