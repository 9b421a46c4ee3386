#if Postgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import TempoJobs
import TempoPlans
import TempoPostgres

/// The `bench` mode: `--jobs` jobs (default 1,000), each every `--every-ms` (default 1,000) on a grid since the
/// epoch, spread by `--spread-ms` (default 0: all at once; see `JobOptions.spread`), with empty bodies, for `--seconds` (default 10) after a warm-up of 2 s; prints the runs of this replica,
/// the dates other replicas ran, those missed and skipped, and the claim's time (granted or refused), median and
/// p99. Run several at once on one database for the cluster's rate (the sum of their runs).
func benchMode(_ options: Options) async throws {
    let (jobs, seconds) = (options.value("jobs", 1_000), options.value("seconds", 10))
    let logger = makeLogger(options.replica)
    let client = options.makeClient()
    let running = Task { await client.run() }
    try await PostgresSchema.migrate(on: client, logger: logger)
    let coordinator = TimedCoordinator(try PostgresJobCoordinator(client: client, replica: options.replica))
    let scheduler = JobScheduler(
        configuration: .init(gracePeriod: .seconds(10)),
        store: try PostgresJobStore(client: client, logger: logger), coordinator: coordinator, logger: logger,
        clock: ContinuousClock())
    let every = try Plan.every(.milliseconds(options.value("every-ms", 1_000)), anchor: Date(timeIntervalSince1970: 0))
    let spread = options.value("spread-ms", 0)
    let jobOptions = JobOptions(spread: spread > 0 ? .milliseconds(spread) : nil)
    for index in 0..<jobs {
        try scheduler.register("job-\(index)", .plan(every), options: jobOptions) { _ in }
    }
    let scheduling = Task { try await scheduler.run() }
    try await Task.sleep(for: .seconds(2))
    let before = total(scheduler, jobs: jobs)
    coordinator.reset()
    try await Task.sleep(for: .seconds(seconds))
    let after = total(scheduler, jobs: jobs)
    let times = coordinator.sorted()
    scheduler.triggerGracefulShutdown()
    try await scheduling.value
    await endClient(running)
    let runs = after.succeeded - before.succeeded
    let median = times.isEmpty ? .zero : times[times.count / 2]
    let p99 = times.isEmpty ? .zero : times[min(times.count - 1, times.count * 99 / 100)]
    say(
        """
        bench \(options.replica): \(jobs) jobs for \(seconds) s: runs \(runs) (\(runs / max(1, seconds)) per s), \
        claimed elsewhere \(after.claimedElsewhere - before.claimedElsewhere), missed \(after.missed - before.missed), \
        skipped \(after.skipped - before.skipped), failed \(after.failed - before.failed); claim median \
        \(milliseconds(median)) ms, p99 \(milliseconds(p99)) ms over \(times.count) claims
        """)
}

/// The statistics of every job, added up.
private func total(_ scheduler: JobScheduler<ContinuousClock>, jobs: Int) -> JobStats {
    var sum = JobStats()
    for index in 0..<jobs {
        guard let stats = scheduler.stats(for: "job-\(index)") else { continue }
        sum.succeeded += stats.succeeded
        sum.failed += stats.failed
        sum.claimedElsewhere += stats.claimedElsewhere
        sum.missed += stats.missed
        sum.skipped += stats.skipped
    }
    return sum
}

/// A duration in milliseconds, with three decimals.
private func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    return String(format: "%.3f", Double(microseconds) / 1000)
}

/// A coordinator that times each claim of the one it wraps.
private final class TimedCoordinator: JobCoordinator {
    private let base: PostgresJobCoordinator
    private let times = Mutex<[Duration]>([])

    init(_ base: PostgresJobCoordinator) { self.base = base }

    func claim(job: String, plannedDate: Date, logger: Logger) async throws(JobError) -> (any JobClaim)? {
        let clock = ContinuousClock()
        let start = clock.now
        let claim = try await base.claim(job: job, plannedDate: plannedDate, logger: logger)
        let time = start.duration(to: clock.now)
        times.withLock { $0.append(time) }
        return claim
    }

    func abandonedDates(job: String, before date: Date, logger: Logger) async -> [Date] {
        await base.abandonedDates(job: job, before: date, logger: logger)
    }

    func reset() { times.withLock { $0.removeAll() } }

    func sorted() -> [Duration] { times.withLock { $0.sorted() } }
}
#endif
