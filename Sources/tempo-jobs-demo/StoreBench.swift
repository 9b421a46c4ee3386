// The numbers of issue #41, measured in one process (`tempo-jobs-demo store-bench`): many jobs whose runs each
// write a cursor, with InMemoryJobStore and then JSONFileJobStore in the same run, beside an unrelated 10 ms
// `Task.sleep(until:)` loop (the bystander) whose lateness shows whether the cooperative pool stays free.
//
//     tempo-jobs-demo store-bench [--jobs 10000] [--period 10] [--warmup 20] [--window 10] [--dir PATH]
//
// Each store gets a fresh scheduler with `--jobs` jobs `.every(period)` spread over the period (delivery at least
// once: each run saves its cursor after the body), `--warmup` seconds to reach a steady state (every job has run
// and its cursor is in the file), then `--window` seconds measured: runs, cursor writes that returned, the
// lateness of the runs and of the bystander's ticks, the process's CPU time, and for the file store its grouped
// file writes. Each store prints one line, and one `result` line of key=value pairs for scripts.
import Foundation
import Logging
import Synchronization
import TempoJobs

#if canImport(Glibc)
import Glibc
#endif

enum StoreBench {
    struct Settings {
        var jobs = 10_000
        var period = 10
        var warmup = 20.0
        var window = 10.0
        var dir: String?

        init(arguments: [String]) {
            var rest = arguments[...]
            while let flag = rest.popFirst() {
                let value = rest.popFirst() ?? ""
                switch flag {
                case "--jobs": jobs = Int(value) ?? jobs
                case "--period": period = Int(value) ?? period
                case "--warmup": warmup = Double(value) ?? warmup
                case "--window": window = Double(value) ?? window
                case "--dir": dir = value
                default: Bench.say("store-bench: unknown option \(flag) (ignored)")
                }
            }
        }
    }

    static func run(arguments: [String]) async throws {
        let settings = Settings(arguments: arguments)
        let folder =
            settings.dir
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("tempo-store-bench-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = (folder as NSString).appendingPathComponent("jobs-\(getpid()).json")
        Bench.say(
            "store bench: \(settings.jobs) jobs every \(settings.period) s, spread over the period, cursor after "
                + "each run; \(settings.warmup) s warm-up, \(settings.window) s measured; bystander: a 10 ms "
                + "Task.sleep(until:) loop; file \(path); \(ProcessInfo.processInfo.activeProcessorCount) CPUs")
        try await phase("InMemoryJobStore", store: InMemoryJobStore(), settings: settings)
        let file = JSONFileJobStore(path: path)
        let finish: @Sendable () -> Void = {
            // The file, and the temporary file of a write that the exit cuts short.
            let name = (path as NSString).lastPathComponent
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            where entry.hasPrefix(name) {
                try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(entry))
            }
        }
        try await phase("JSONFileJobStore", store: file, settings: settings, finish: finish) {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            guard let writes = fileWrites(of: file) else { return "file \(size / 1024) KiB" }
            return "file writes \(writes) since start, file \(size / 1024) KiB"
        }
    }

    /// One store's run: a scheduler of `settings.jobs` jobs, warmed up, then measured for `settings.window`.
    static func phase(
        _ name: String, store: any JobStore, settings: Settings, finish: (@Sendable () -> Void)? = nil,
        extra: @escaping @Sendable () -> String = { "" }
    ) async throws {
        var logger = Logger(label: "store-bench")
        logger.logLevel = .critical
        let counting = CountingStore(store)
        let runs = Events()
        let ticks = Events()
        let scheduler = JobScheduler(
            configuration: .init(gracePeriod: .seconds(2), abandonAfter: .seconds(2)), store: counting,
            logger: logger)
        let period = Duration.seconds(settings.period)
        for index in 0..<settings.jobs {
            try scheduler.register(
                "job-\(index)", .every(period), options: JobOptions(spread: period)
            ) { context in
                runs.record(Date().timeIntervalSince(context.plannedDate) * 1_000)
            }
        }
        let start = ContinuousClock.now
        let from = start.advanced(by: .seconds(settings.warmup))
        let until = from.advanced(by: .seconds(settings.window))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await scheduler.run() }
            group.addTask { try await Self.bystander(from: from, until: until, into: ticks) }
            // Measured on a thread outside the pool, so that a stalled pool (the old store) cannot delay the
            // samples or the report; with `finish` (the last phase) that thread ends the process.
            await withCheckedContinuation { continuation in
                Thread {
                    Self.sleep(until: from)
                    let cpu0 = Bench.cpuSeconds()
                    let measured0 = ContinuousClock.now
                    Self.sleep(until: until)
                    let cpu1 = Bench.cpuSeconds()
                    let measured1 = ContinuousClock.now
                    Self.report(
                        name, settings: settings, wall: Bench.seconds(measured0.duration(to: measured1)),
                        cpu: cpu1 - cpu0, saves: counting.events.between(measured0, measured1),
                        failures: counting.failures, runs: runs.between(measured0, measured1),
                        ticks: ticks.between(measured0, measured1), extra: extra())
                    if let finish {
                        finish()
                        exit(0)
                    }
                    continuation.resume()
                }.start()
            }
            scheduler.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }

    /// Prints a phase's line and its `result` line.
    static func report(
        _ name: String, settings: Settings, wall: Double, cpu: Double, saves: [Double], failures: Int,
        runs: [Double], ticks: [Double], extra: String
    ) {
        let due = Double(settings.jobs) * settings.window / Double(settings.period)
        let writesPerSecond = Double(saves.count) / wall
        Bench.say(
            "\(name): \(runs.count) runs of \(Int(due)) due; cursor writes \(format(writesPerSecond)) per s "
                + "(save ms \(summary(saves)), \(failures) failed since start); run lateness ms \(summary(runs)); "
                + "bystander 10 ms loop: \(ticks.count) of \(Int(settings.window * 100)) ticks, lateness ms "
                + "\(summary(ticks)); CPU \(format(cpu / wall)) s per s" + (extra.isEmpty ? "" : "; " + extra))
        Bench.say(
            "result store=\(name) writes_per_s=\(format(writesPerSecond)) runs=\(runs.count) "
                + "ticks=\(ticks.count) tick_p50_ms=\(format(percentile(ticks, 50))) "
                + "tick_p99_ms=\(format(percentile(ticks, 99))) tick_max_ms=\(format(ticks.max() ?? .nan)) "
                + "cpu_s_per_s=\(format(cpu / wall)) save_p50_ms=\(format(percentile(saves, 50))) "
                + "save_p99_ms=\(format(percentile(saves, 99)))")
    }

    /// Blocks the calling thread (never one of the pool's) until `instant`.
    static func sleep(until instant: ContinuousClock.Instant) {
        let left = ContinuousClock.now.duration(to: instant)
        if left > .zero { Thread.sleep(forTimeInterval: Bench.seconds(left)) }
    }

    /// The bystander: ticks every 10 ms from `from` (anchored: tick k is due at from + k · 10 ms) until `until`,
    /// recording into `ticks` each tick's lateness in milliseconds (a tick that wakes after `until` is not
    /// recorded).
    static func bystander(
        from: ContinuousClock.Instant, until: ContinuousClock.Instant, into ticks: Events
    ) async throws {
        let clock = ContinuousClock()
        var tick = 1
        while true {
            let deadline = from.advanced(by: .milliseconds(10 * tick))
            guard deadline <= until else { return }
            try await Task.sleep(until: deadline, clock: clock)
            let now = clock.now
            guard now <= until else { return }
            ticks.record(Bench.seconds(deadline.duration(to: now)) * 1_000)
            tick += 1
        }
    }

    static func format(_ value: Double) -> String {
        String(format: value < 10 ? "%.2f" : "%.1f", value)
    }

    static func percentile(_ values: [Double], _ percent: Int) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, sorted.count * percent / 100)]
    }

    static func summary(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "none" }
        return "p50 \(format(percentile(values, 50))) p99 \(format(percentile(values, 99))) max "
            + format(values.max() ?? .nan)
    }
}

/// Values recorded from any task with the instant each was recorded.
final class Events: Sendable {
    private let state = Mutex<[(at: ContinuousClock.Instant, value: Double)]>([])

    func record(_ value: Double) {
        let now = ContinuousClock.now
        state.withLock { $0.append((now, value)) }
    }

    /// The values recorded between `from` and `until`.
    func between(_ from: ContinuousClock.Instant, _ until: ContinuousClock.Instant) -> [Double] {
        state.withLock { events in events.filter { $0.at >= from && $0.at <= until }.map(\.value) }
    }
}

/// A store that forwards to another and records each returned save's duration (ms).
final class CountingStore: JobStore {
    let inner: any JobStore
    let events = Events()
    private let failed = Mutex(0)

    init(_ inner: any JobStore) {
        self.inner = inner
    }

    var failures: Int { failed.withLock { $0 } }

    func cursor(for job: String) async throws -> JobCursor? {
        try await inner.cursor(for: job)
    }

    func save(_ cursor: JobCursor, for job: String) async throws {
        let start = ContinuousClock.now
        do {
            try await inner.save(cursor, for: job)
        } catch {
            failed.withLock { $0 += 1 }
            throw error
        }
        events.record(Bench.seconds(start.duration(to: .now)) * 1_000)
    }
}
