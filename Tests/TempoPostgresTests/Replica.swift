#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPlans
import TempoPostgres

/// Creates the table the replicas' job writes to: one row per date, so that a second run of a date fails.
func createResultsTable(on client: PostgresClient) async throws {
    try await step("creating the results table") {
        try await client.query(
            """
            CREATE TABLE results (job text NOT NULL, planned_at timestamptz NOT NULL, \
            replica text NOT NULL, PRIMARY KEY (job, planned_at))
            """)
    }
}

/// A scheduler whose wall clock is `skew` seconds off, running one job every 200 ms (dates on a grid since the
/// epoch, the same on every replica) that writes its date fenced by its claim (`withFencedTransaction`); its
/// database calls are retried per `retry`.
func makeReplica(
    _ replica: String, skew: Double, client: PostgresClient, logger: Logger, retry: PostgresRetry = PostgresRetry()
) throws -> JobScheduler<ContinuousClock> {
    let scheduler = JobScheduler(
        store: try PostgresJobStore(client: client, retry: retry, logger: logger),
        coordinator: try PostgresJobCoordinator(
            client: client, replica: replica, configuration: .init(retry: retry)),
        logger: logger, wallClock: { Date() + skew }, clock: ContinuousClock())
    let schedule = JobSchedule.plan(try Plan.every(.milliseconds(200), anchor: Date(timeIntervalSince1970: 0)))
    try scheduler.register("tick", schedule) { context in
        guard let claim = context.claim as? PostgresJobClaim else { throw JobError(.claimLost, message: "no claim") }
        try await claim.withFencedTransaction(logger: logger) { connection in
            try await connection.query(
                "INSERT INTO results VALUES ('tick', \(context.plannedDate), \(replica))", logger: logger)
        }
    }
    return scheduler
}
#endif
