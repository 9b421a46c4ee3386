#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPlans
import TempoPostgres

/// The `run` mode: a replica of an app with one job, "tick", every `--every-ms` (default 200) on a grid since the
/// epoch (the same dates on every replica), on a wall clock `--skew-ms` off (default 0), with claims of
/// `--lease-ms` (default 10,000), at least once with catch-up of each date within 60 s, for `--seconds` (default
/// 20; 0 runs until the process is killed).
///
/// Each run inserts (job, date, replica, token, now()) into `runs` (no key: every run of a date is a row), sleeps
/// `--hold-ms` (default 0), then inserts the same into `results` (key: job and date) if its token still holds the
/// date. The tables are the caller's. Prints "planning from MS" and "stopping at MS" (this replica's skewed wall
/// clock, milliseconds since 1970), then "stats succeeded=... failed=... claimedElsewhere=... missed=...
/// overlapped=..." (dates the overlap policy skipped).
func runMode(_ options: Options) async throws {
    let replica = options.replica
    let skew = Double(options.value("skew-ms", 0)) / 1000
    let hold = options.value("hold-ms", 0)
    let seconds = options.value("seconds", 20)
    let logger = makeLogger(replica)
    let client = options.makeClient()
    let running = Task { await client.run() }
    try await PostgresSchema.migrate(on: client, logger: logger)
    let scheduler = JobScheduler(
        configuration: .init(gracePeriod: .seconds(10)),
        store: try PostgresJobStore(client: client, logger: logger),
        coordinator: try PostgresJobCoordinator(
            client: client, replica: replica,
            configuration: .init(lease: .milliseconds(options.value("lease-ms", 10_000)))),
        logger: logger, wallClock: { Date() + skew }, clock: ContinuousClock())
    let every = try Plan.every(.milliseconds(options.value("every-ms", 200)), anchor: Date(timeIntervalSince1970: 0))
    try scheduler.register(
        "tick", .plan(every), options: JobOptions(catchUp: .each(within: .seconds(60)))
    ) { context in
        let (date, token) = (context.plannedDate, context.claim.fencingToken)
        try await client.query("INSERT INTO runs VALUES ('tick', \(date), \(replica), \(token), now())")
        if hold > 0 { try await Task.sleep(for: .milliseconds(hold)) }
        try await client.query(
            """
            INSERT INTO results SELECT 'tick', \(date), \(replica), \(token), now() WHERE EXISTS (SELECT 1 \
            FROM tempo_claims WHERE job = 'tick' AND planned_at = \(date) AND token = \(token) \
            AND lease_until > now())
            """)
    }
    say("planning from \(milliseconds(Date() + skew))")
    let scheduling = Task { try await scheduler.run() }
    guard seconds > 0 else {
        try await scheduling.value
        return
    }
    try await Task.sleep(for: .seconds(seconds))
    say("stopping at \(milliseconds(Date() + skew))")
    scheduler.triggerGracefulShutdown()
    try await scheduling.value
    let stats = scheduler.stats(for: "tick") ?? JobStats()
    say(
        """
        stats succeeded=\(stats.succeeded) failed=\(stats.failed) claimedElsewhere=\(stats.claimedElsewhere) \
        missed=\(stats.missed) overlapped=\(stats.skipped)
        """)
    await endClient(running)
}

/// Milliseconds since 1970.
func milliseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded())
}
#endif
