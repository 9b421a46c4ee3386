// The numbers of issue #32, measured in one process (`tempo-jobs-demo bench`):
// 1. the lateness of a job run (from its date to the body's first line) against a bare `Task.sleep(until:)` loop
//    doing the same work, in alternating rounds;
// 2. 10,000 jobs of a 1 s period: CPU time per second of wall time and resident memory per job.
import Foundation
import Logging
import Synchronization
import Tempo
import TempoJobs

#if canImport(Glibc)
import Glibc
#endif

enum Bench {
    static func run() async throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let period = Duration.milliseconds(10)
        let ticks = 200
        var loop: [Double] = []
        var jobs: [Double] = []
        for round in 1...3 {
            loop += try await bareLoop(period: period, ticks: ticks)
            jobs += try await scheduler(period: period, ticks: ticks, logger: logger)
            say("round \(round) done")
        }
        say("lateness µs over \(loop.count) ticks of \(period): " + "bare loop \(summary(loop)); job \(summary(jobs))")
        say("ratio of medians job/loop: \(String(format: "%.2f", median(jobs) / median(loop)))")
        if let count = allocationCount {
            let loopAllocations = try await bareLoopAllocations(period: period, ticks: ticks, count: count)
            let jobAllocations = try await schedulerAllocations(
                period: period, ticks: ticks, logger: logger, count: count)
            say(
                "allocations per tick (median over \(ticks - 1) ticks): bare loop with a Task per tick "
                    + "\(median(loopAllocations)), job \(median(jobAllocations)); the scheduler's own: "
                    + "\(median(jobAllocations) - median(loopAllocations))")
        } else {
            say("allocations: not counted (run with LD_PRELOAD of .ci/alloc-counter.c built as a shared library)")
        }
        try await manyJobs(count: 10_000, logger: logger)
    }

    /// Lateness (µs) of a `Task.sleep(until:)` loop on the continuous clock, anchored like `.every`.
    static func bareLoop(period: Duration, ticks: Int) async throws -> [Double] {
        let clock = ContinuousClock()
        let startDate = Date()
        let start = clock.now
        var lateness: [Double] = []
        for tick in 1...ticks {
            try await Task.sleep(until: start.advanced(by: period * tick), clock: clock)
            let planned = startDate.addingTimeInterval(seconds(period * tick))
            lateness.append(Date().timeIntervalSince(planned) * 1e6)
        }
        return lateness
    }

    /// Lateness (µs) of a job `.every(period)`, from its planned date to its body's first line.
    static func scheduler(period: Duration, ticks: Int, logger: Logger) async throws -> [Double] {
        let scheduler = JobScheduler(logger: logger)
        let samples = Samples()
        try scheduler.register("tick", .every(period)) { context in
            let late = Date().timeIntervalSince(context.plannedDate) * 1e6
            if samples.append(late) >= ticks { scheduler.triggerGracefulShutdown() }
        }
        try await scheduler.run()
        return Array(samples.values.prefix(ticks))
    }

    /// The process's allocation count, when the `.ci/alloc-counter.c` interposer is preloaded.
    static let allocationCount: (@convention(c) () -> UInt64)? = {
        guard let symbol = dlsym(nil, "tempo_alloc_count") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
    }()

    /// Allocations between the starts of consecutive ticks of a `Task.sleep(until:)` loop that starts a `Task` per
    /// tick (the body's task, which a job run has too).
    static func bareLoopAllocations(
        period: Duration, ticks: Int, count: @convention(c) () -> UInt64
    ) async throws -> [Double] {
        let clock = ContinuousClock()
        let start = clock.now
        var marks: [UInt64] = []
        marks.reserveCapacity(ticks)
        for tick in 1...ticks {
            try await Task.sleep(until: start.advanced(by: period * tick), clock: clock)
            marks.append(count())
            Task { _ = Task.isCancelled }
        }
        return zip(marks.dropFirst(), marks).map { Double($0 - $1) }
    }

    /// Allocations between the first lines of consecutive runs of a job `.every(period)` whose body does nothing.
    static func schedulerAllocations(
        period: Duration, ticks: Int, logger: Logger, count: @convention(c) () -> UInt64
    ) async throws -> [Double] {
        let scheduler = JobScheduler(logger: logger)
        let marks = Marks(capacity: ticks)
        try scheduler.register("tick", .every(period)) { _ in
            if marks.append(count()) >= ticks { scheduler.triggerGracefulShutdown() }
        }
        try await scheduler.run()
        let values = marks.values.prefix(ticks)
        return zip(values.dropFirst(), values).map { Double($0 - $1) }
    }

    /// 10,000 jobs every second, spread over the second: CPU per second and memory per job.
    static func manyJobs(count: Int, logger: Logger) async throws {
        let before = residentBytes()
        let scheduler = JobScheduler(logger: logger)
        let runs = Samples()
        for index in 0..<count {
            try scheduler.register(
                "job-\(index)", .every(.seconds(1)), options: JobOptions(spread: .seconds(1))
            ) {
                _ in _ = runs.append(0)
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await scheduler.run() }
            try await Task.sleep(for: .seconds(3))  // warm-up: every job planned and run once
            let resident = residentBytes()
            let cpu0 = cpuSeconds()
            let runs0 = runs.count
            let wall0 = ContinuousClock.now
            try await Task.sleep(for: .seconds(5))
            let cpu = cpuSeconds() - cpu0
            let wall = seconds(wall0.duration(to: .now))
            let done = runs.count - runs0
            say(
                "\(count) jobs every 1 s: \(done) runs in \(String(format: "%.2f", wall)) s, CPU "
                    + "\(String(format: "%.3f", cpu / wall)) s per s, resident memory "
                    + "\((resident - before) / count) B per job (\(before / 1_048_576) MiB before, "
                    + "\(resident / 1_048_576) MiB with the jobs running)")
            scheduler.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func seconds(_ duration: Duration) -> Double {
        duration.inSeconds
    }

    static func median(_ values: [Double]) -> Double {
        values.sorted()[values.count / 2]
    }

    static func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        return String(format: "p50 %.1f p99 %.1f", sorted[sorted.count / 2], p99)
    }

    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }
}

/// Samples appended from the jobs' tasks.
final class Samples: Sendable {
    private let state = Mutex<[Double]>([])

    /// Appends `value`; returns the count after it.
    func append(_ value: Double) -> Int {
        state.withLock {
            $0.append(value)
            return $0.count
        }
    }

    var values: [Double] { state.withLock { $0 } }
    var count: Int { state.withLock { $0.count } }
}

/// Allocation counts recorded from the jobs' tasks, into storage reserved up front (so recording allocates nothing).
final class Marks: Sendable {
    private let state: Mutex<[UInt64]>

    init(capacity: Int) {
        var values: [UInt64] = []
        values.reserveCapacity(capacity + 16)
        state = Mutex(values)
    }

    /// Appends `value`; returns the count after it.
    func append(_ value: UInt64) -> Int {
        state.withLock {
            $0.append(value)
            return $0.count
        }
    }

    var values: [UInt64] { state.withLock { $0 } }
}
