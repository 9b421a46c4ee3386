#if Postgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Tempo
import TempoJobs
import TempoPlans
import TempoPostgres

/// The `bench` mode: `--jobs` jobs (default 1,000), each every `--every-ms` (default 1,000) on a grid since the
/// epoch, spread by `--spread-ms` (default 0: all at once; see `JobOptions.spread`), for `--seconds` (default 10)
/// after a warm-up of 2 s. Each body records its date-to-start time (`Date()` minus the planned date) and
/// `JobContext.lateness`, and returns. Prints the runs of this replica, the dates other replicas ran, those missed
/// and skipped, the date-to-start time and the lateness (median, p99, max), the claim's time (granted or refused,
/// and of those granted, median and p99), the process's CPU time (`getrusage`), and the runs since the start
/// (warm-up included, for a count of the claims table). Run several at once on one database for the cluster's rate
/// (the sum of their runs). With `--local 1` it runs the same jobs on one scheduler with no coordinator and an
/// `InMemoryJobStore` (no database; SOCKET and DATABASE are ignored), the baseline of the same run. With the
/// environment variable `TEMPO_BENCH_SAMPLES` set to a folder, it writes each date-to-start time of the measurement
/// (milliseconds, one a line) to `REPLICA.samples` there, for percentiles of several processes together.
func benchMode(_ options: Options) async throws {
    let (jobs, seconds) = (options.value("jobs", 1_000), options.value("seconds", 10))
    let local = options.value("local", 0) != 0
    let logger = makeLogger(options.replica)
    var running: Task<Void, Never>?
    var coordinator: TimedCoordinator?
    let scheduler: JobScheduler<ContinuousClock>
    if local {
        scheduler = JobScheduler(
            configuration: .init(gracePeriod: .seconds(10)), store: InMemoryJobStore(), logger: logger,
            clock: ContinuousClock())
    } else {
        let client = options.makeClient()
        running = Task { await client.run() }
        try await PostgresSchema.migrate(on: client, logger: logger)
        let timed = TimedCoordinator(try PostgresJobCoordinator(client: client, replica: options.replica))
        coordinator = timed
        scheduler = JobScheduler(
            configuration: .init(gracePeriod: .seconds(10)),
            store: try PostgresJobStore(client: client, logger: logger), coordinator: timed, logger: logger,
            clock: ContinuousClock())
    }
    let every = try Plan.every(.milliseconds(options.value("every-ms", 1_000)), anchor: Date(timeIntervalSince1970: 0))
    let spread = options.value("spread-ms", 0)
    let jobOptions = JobOptions(spread: spread > 0 ? .milliseconds(spread) : nil)
    let starts = StartTimes()
    for index in 0..<jobs {
        try scheduler.register("job-\(index)", .plan(every), options: jobOptions) { context in
            starts.record(Date().timeIntervalSince(context.plannedDate), context.lateness)
        }
    }
    let scheduling = Task { try await scheduler.run() }
    try await Task.sleep(for: .seconds(2))
    let before = total(scheduler, jobs: jobs)
    coordinator?.reset()
    starts.start()
    let cpuBefore = cpuSeconds()
    try await Task.sleep(for: .seconds(seconds))
    let cpuAfter = cpuSeconds()
    starts.stop()
    let after = total(scheduler, jobs: jobs)
    let times = coordinator?.sorted() ?? []
    let won = coordinator?.sortedGranted() ?? []
    let (toStart, lateness) = starts.sorted()
    scheduler.triggerGracefulShutdown()
    try await scheduling.value
    let sinceStart = total(scheduler, jobs: jobs)
    if let running { await endClient(running) }
    if let folder = ProcessInfo.processInfo.environment["TEMPO_BENCH_SAMPLES"] {
        let lines = toStart.map { format($0 * 1000) + "\n" }.joined()
        _ = FileManager.default.createFile(atPath: "\(folder)/\(options.replica).samples", contents: Data(lines.utf8))
    }
    let runs = after.succeeded - before.succeeded
    let cpu = cpuAfter - cpuBefore
    say(
        """
        bench \(options.replica): \(jobs) jobs for \(seconds) s: runs \(runs) (\(runs / max(1, seconds)) per s), \
        claimed elsewhere \(after.claimedElsewhere - before.claimedElsewhere), missed \(after.missed - before.missed), \
        skipped \(after.skipped - before.skipped), failed \(after.failed - before.failed); claim median \
        \(milliseconds(percentile(times, 50))) ms, p99 \(milliseconds(percentile(times, 99))) ms over \
        \(times.count) claims
        """)
    // One line of `name=value` pairs for scripts (Benchmarks/replicas.sh); times in milliseconds.
    say(
        """
        result replica=\(options.replica) local=\(local ? 1 : 0) jobs=\(jobs) seconds=\(seconds) runs=\(runs) \
        elsewhere=\(after.claimedElsewhere - before.claimedElsewhere) missed=\(after.missed - before.missed) \
        skipped=\(after.skipped - before.skipped) failed=\(after.failed - before.failed) \
        start_p50=\(format(percentile(toStart, 50) * 1000)) start_p99=\(format(percentile(toStart, 99) * 1000)) \
        start_max=\(format((toStart.last ?? 0) * 1000)) started=\(toStart.count) \
        late_p50=\(milliseconds(percentile(lateness, 50))) late_p99=\(milliseconds(percentile(lateness, 99))) \
        late_max=\(milliseconds(lateness.last ?? .zero)) \
        claim_p50=\(milliseconds(percentile(times, 50))) claim_p99=\(milliseconds(percentile(times, 99))) \
        claims=\(times.count) won_p50=\(milliseconds(percentile(won, 50))) \
        won_p99=\(milliseconds(percentile(won, 99))) won=\(won.count) cpu_s=\(format(cpu)) \
        runs_since_start=\(sinceStart.succeeded)
        """)
}

/// The element at `percent` of a sorted array (zero or `.zero` when empty).
private func percentile<T: AdditiveArithmetic>(_ sorted: [T], _ percent: Int) -> T {
    sorted.isEmpty ? .zero : sorted[min(sorted.count - 1, sorted.count * percent / 100)]
}

/// The process's user plus system CPU time, in seconds.
private func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
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

/// A number with three decimals.
private func format(_ value: Double) -> String { String(format: "%.3f", value) }

/// A duration in milliseconds, with three decimals.
private func milliseconds(_ duration: Duration) -> String {
    String(format: "%.3f", Double(duration.microseconds(rounded: .down)) / 1000)
}

/// The date-to-start times and latenesses the bodies record while the measurement runs.
private final class StartTimes: Sendable {
    private let state = Mutex<(recording: Bool, toStart: [Double], lateness: [Duration])>((false, [], []))

    func start() { state.withLock { $0.recording = true } }

    func stop() { state.withLock { $0.recording = false } }

    func record(_ toStart: Double, _ lateness: Duration) {
        state.withLock {
            guard $0.recording else { return }
            $0.toStart.append(toStart)
            $0.lateness.append(lateness)
        }
    }

    func sorted() -> ([Double], [Duration]) { state.withLock { ($0.toStart.sorted(), $0.lateness.sorted()) } }
}

/// A coordinator that times each claim of the one it wraps.
private final class TimedCoordinator: JobCoordinator {
    private let base: PostgresJobCoordinator
    private let times = Mutex<[Duration]>([])
    private let granted = Mutex<[Duration]>([])

    init(_ base: PostgresJobCoordinator) { self.base = base }

    func claim(job: String, plannedDate: Date, logger: Logger) async throws(JobError) -> (any JobClaim)? {
        let clock = ContinuousClock()
        let start = clock.now
        let claim = try await base.claim(job: job, plannedDate: plannedDate, logger: logger)
        let time = start.duration(to: clock.now)
        times.withLock { $0.append(time) }
        if claim != nil { granted.withLock { $0.append(time) } }
        return claim
    }

    func abandonedDates(job: String, before date: Date, logger: Logger) async -> [Date] {
        await base.abandonedDates(job: job, before: date, logger: logger)
    }

    func settleAbandoned(job: String, dates: [Date], logger: Logger) async {
        await base.settleAbandoned(job: job, dates: dates, logger: logger)
    }

    func reset() {
        times.withLock { $0.removeAll() }
        granted.withLock { $0.removeAll() }
    }

    /// The times of all claims, granted or refused.
    func sorted() -> [Duration] { times.withLock { $0.sorted() } }

    /// The times of the claims granted (those the runs waited for).
    func sortedGranted() -> [Duration] { granted.withLock { $0.sorted() } }
}
#endif
