import CTempoToolsShims
import Dispatch
import Synchronization
package import Tempo

/// How arming and cancelling scales with threads: `tempo bench --threads N`.
///
/// Each case is measured in the same process, one after the other, in passes: each pass signals every thread at
/// once, each thread arms (or starts) its own `perThread` timers and then cancels them, and the pass's wall time runs
/// from the signal to the last thread's end (one unmeasured pass warms up first). The rate is arm + cancel pairs
/// per microsecond over all threads, in the fastest pass and in the median pass: on a machine that other work loads,
/// short passes (keep `perThread` small) let some run undisturbed, and the fastest is the one where the machine gave
/// the threads their cores; the median is what a user meets. The process's CPU time over a pass, as a percentage of
/// its wall time, tells whether the threads really ran at once (near `threads × 100` %).
///
/// When there are no more threads than processors, each thread is bound to a processor of its own (Linux; see
/// ``Result/boundToProcessors``), in every case alike: woken together by the pass's signal, unbound threads were
/// sometimes both placed on one processor while the other stayed idle (`perf sched timehist` showed the second thread
/// waiting 1-2 ms to run on a 2-processor machine), which made a pass run its threads one after the other whatever
/// the scheduler under test did.
///
/// Thread-safety: run one measurement at a time.
package enum ArmScaling {
    /// What is armed, from how many threads.
    package enum Case: Sendable, CaseIterable, CustomStringConvertible {
        /// ``TempoTimer``s on ``SystemScheduler/shared``, started and cancelled by one thread.
        case timerOneThread
        /// ``TempoTimer``s on ``SystemScheduler/shared``, each thread starting and cancelling its own.
        case timerShared
        /// The control: each thread's ``TempoTimer``s on a ``SystemScheduler`` of its own (nothing shared but the
        /// machine).
        case timerControl
        /// As ``timerOneThread``, but each pass creates its timers too (`TempoTimer(...).start()`, as most code arms
        /// a timer) and releases them after cancelling them.
        case createdOneThread
        /// As ``timerShared``, each pass creating and releasing its timers.
        case createdShared
        /// As ``timerControl``, each pass creating and releasing its timers.
        case createdControl
        /// Value timers of one ``TimingWheel``, armed and cancelled by one thread.
        case wheelOneThread
        /// Value timers of a ``ShardedTimingWheel``, armed and cancelled by one thread.
        case shardedWheelOneThread
        /// Value timers of one ``ShardedTimingWheel``, each thread arming and cancelling its own.
        case shardedWheel

        /// The case's name in the table.
        package var description: String {
            switch self {
            case .timerOneThread: "tempo-timer, 1 thread"
            case .timerShared: "tempo-timer, N threads, shared scheduler"
            case .timerControl: "control: tempo-timer, N threads, a scheduler each"
            case .createdOneThread: "created in the pass, 1 thread"
            case .createdShared: "created in the pass, N threads, shared scheduler"
            case .createdControl: "control: created in the pass, N threads, a scheduler each"
            case .wheelOneThread: "timing-wheel, 1 thread"
            case .shardedWheelOneThread: "sharded-wheel, 1 thread"
            case .shardedWheel: "sharded-wheel, N threads"
            }
        }

        /// Whether the case runs on one thread whatever N is.
        package var isOneThread: Bool {
            switch self {
            case .timerOneThread, .createdOneThread, .wheelOneThread, .shardedWheelOneThread: true
            case .timerShared, .timerControl, .createdShared, .createdControl, .shardedWheel: false
            }
        }
    }

    /// One measured case.
    package struct Result: Sendable {
        /// What was measured.
        package let measured: Case
        /// How many threads armed.
        package let threads: Int
        /// Arm + cancel pairs per microsecond over all threads, in the fastest pass.
        package let pairsPerMicrosecond: Double
        /// The same in the median pass.
        package let medianPairsPerMicrosecond: Double
        /// Nanoseconds per arm + cancel pair on one thread (wall time × threads / pairs), in the fastest pass.
        package let nanosecondsPerPair: Double
        /// Process CPU time over wall time, in percent, in the fastest pass.
        package let cpuPercentOfWall: Double
        /// Nanoseconds per arm + cancel pair on one thread in the median pass.
        package let medianNanosecondsPerPair: Double
        /// Process CPU time over wall time, in percent, in the median pass.
        package let medianCpuPercentOfWall: Double
        /// Whether every thread ran bound to a processor of its own (see ``ArmScaling``): `false` with more threads
        /// than processors, or where the system has no binding (Darwin) or refused it.
        package let boundToProcessors: Bool
    }

    /// Measures `measured` with `threads` threads (one for the one-thread cases).
    ///
    /// Each pass starts all threads together and ends when the last one is done; the result is the fastest pass
    /// (on a machine that other work loads, the pass in which the threads ran undisturbed) and the median pass.
    ///
    /// - Parameters:
    ///   - measured: The case.
    ///   - threads: Threads for the N-thread cases, 1 to 64.
    ///   - perThread: Timers per thread, 1 to 1,000,000.
    ///   - passes: Measured passes, 1 to 1,000.
    /// - Returns: The rates, the cost per pair and CPU / wall.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` naming a count out of range.
    package static func run(_ measured: Case, threads: Int, perThread: Int, passes: Int) throws(TempoError) -> Result {
        for (name, value, range) in [
            ("threads", threads, 1...64), ("perThread", perThread, 1...1_000_000), ("passes", passes, 1...1_000),
        ] where !range.contains(value) {
            throw TempoError(.invalidCount, value: "\(value)", message: "\(name) must be in \(range), got \(value)")
        }
        let threads = measured.isOneThread ? 1 : threads
        let bodies = makeBodies(measured, threads: threads, perThread: perThread)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let binds = threads <= allowedProcessorCount
        // Threads that bound themselves; each counts before its first `done`, so the count is complete after the
        // warm-up pass.
        let bound = Atomic<Int>(0)
        for (index, body) in bodies.enumerated() {
            DriverThread.start(name: "tempo.bench") {
                if binds && ctempo_pin_to_processor(Int32(index)) == 0 { bound.add(1, ordering: .relaxed) }
                // The first pass warms up (table chunks, caches) and is not measured.
                for _ in 0...passes {
                    go.wait()
                    body()
                    done.signal()
                }
            }
        }
        var samples: [(wall: Double, cpu: Double)] = []
        for pass in 0...passes {
            let cpuBefore = ProcessUsage.now().cpuTime
            let start = PlatformClock.now(.monotonic)
            for _ in bodies { go.signal() }
            for _ in bodies { done.wait() }
            let wall = PlatformClock.now(.monotonic) - start
            let cpu = ProcessUsage.now().cpuTime - cpuBefore
            if pass > 0 {
                samples.append((Double(wall.nanoseconds(rounded: .up)), Double(cpu.nanoseconds(rounded: .up))))
            }
        }
        let pairs = Double(threads * perThread)
        let sorted = samples.sorted { $0.wall < $1.wall }
        let best = sorted[0]
        // The median pass by wall time (the upper one of an even count: never flattering).
        let median = sorted[sorted.count / 2]
        return Result(
            measured: measured,
            threads: threads,
            pairsPerMicrosecond: pairs / (best.wall / 1_000),
            medianPairsPerMicrosecond: pairs / (median.wall / 1_000),
            nanosecondsPerPair: best.wall * Double(threads) / pairs,
            cpuPercentOfWall: 100 * best.cpu / best.wall,
            medianNanosecondsPerPair: median.wall * Double(threads) / pairs,
            medianCpuPercentOfWall: 100 * median.cpu / median.wall,
            boundToProcessors: bound.load(ordering: .relaxed) == threads
        )
    }

    /// The number of processors the process may run on, which threads can be bound to one each (0 where the system
    /// has no binding, as on Darwin).
    package static var allowedProcessorCount: Int { Int(ctempo_allowed_processor_count()) }

    /// One pass per thread: arm its timers, then cancel them.
    private static func makeBodies(_ measured: Case, threads: Int, perThread: Int) -> [@Sendable () -> Void] {
        switch measured {
        case .timerOneThread, .timerShared:
            return (0..<threads).map { _ in timerPass(perThread: perThread, scheduler: SystemScheduler.shared) }
        case .timerControl:
            return (0..<threads).map { _ in timerPass(perThread: perThread, scheduler: SystemScheduler()) }
        case .createdOneThread, .createdShared:
            return (0..<threads).map { _ in creatingPass(perThread: perThread, scheduler: SystemScheduler.shared) }
        case .createdControl:
            return (0..<threads).map { _ in creatingPass(perThread: perThread, scheduler: SystemScheduler()) }
        case .wheelOneThread:
            let wheel = try! TimingWheel(
                configuration: .init(delivery: .immediate, initialCapacity: perThread), handler: NoHandler())
            let handles = HandleBuffer(capacity: perThread)
            return [
                { @Sendable in
                    for value in 0..<perThread {
                        handles.items.append(try! wheel.schedule(after: .seconds(3600), value: UInt64(value)))
                    }
                    for handle in handles.items { wheel.cancel(handle) }
                    handles.items.removeAll(keepingCapacity: true)
                }
            ]
        case .shardedWheelOneThread, .shardedWheel:
            let wheel = try! ShardedTimingWheel(
                configuration: .init(delivery: .immediate, initialCapacity: perThread * threads),
                handler: NoHandler())
            return (0..<threads).map { _ in
                let handles = HandleBuffer(capacity: perThread)
                return { @Sendable in
                    for value in 0..<perThread {
                        handles.items.append(try! wheel.schedule(after: .seconds(3600), value: UInt64(value)))
                    }
                    for handle in handles.items { wheel.cancel(handle) }
                    handles.items.removeAll(keepingCapacity: true)
                }
            }
        }
    }

    /// A pass over `perThread` idle timers due in an hour: start each, then cancel each.
    private static func timerPass(perThread: Int, scheduler: SystemScheduler) -> @Sendable () -> Void {
        let timers = (0..<perThread).map { _ in
            try! TempoTimer(.after(.seconds(3600)), scheduler: scheduler) { _ in }
        }
        return {
            for timer in timers { timer.start() }
            for timer in timers { timer.cancel() }
        }
    }

    /// A pass that creates and starts `perThread` timers due in an hour, then cancels and releases them.
    private static func creatingPass(perThread: Int, scheduler: SystemScheduler) -> @Sendable () -> Void {
        let timers = TimerBuffer(capacity: perThread)
        return {
            for _ in 0..<perThread {
                timers.items.append(try! TempoTimer(.after(.seconds(3600)), scheduler: scheduler) { _ in }.start())
            }
            for timer in timers.items { timer.cancel() }
            timers.items.removeAll(keepingCapacity: true)
        }
    }

    /// The timers of one thread's creating pass, kept between passes so that a pass allocates no array.
    private final class TimerBuffer: @unchecked Sendable {
        // @unchecked: as ``HandleBuffer``.
        var items: [TempoTimer] = []
        init(capacity: Int) { items.reserveCapacity(capacity) }
    }

    /// The handles of one thread's pass, kept between passes so that a pass allocates no array.
    private final class HandleBuffer: @unchecked Sendable {
        // @unchecked: only the one thread that runs the pass touches `items` (the start signal orders the warm-up
        // pass before the measured ones).
        var items: [TimingWheel.Handle] = []
        init(capacity: Int) { items.reserveCapacity(capacity) }
    }

    /// A wheel handler for timers that never fire.
    private final class NoHandler: TimingWheelHandler {
        func timerFired(value: UInt64) {}
    }
}
