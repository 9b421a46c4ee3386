// The one copy of the timer peers, compiled by two packages: here by TempoTools (for `tempo bench`), and by the
// benchmark package through the link Benchmarks/Benchmarks/WheelBenchmarks/TimerPeers.swift (TempoTools has no
// product, so the benchmarks cannot import it). Keep it free of dependencies beyond Tempo and the toolchain.
import Dispatch
import Synchronization
import Tempo

/// Counts fired timers and notes the instant the `target`-th one fired.
final class FireCounter: Sendable {
    let fired = Atomic<Int>(0)
    let target = Atomic<Int>(.max)
    let lastUptime = Atomic<UInt64>(0)
    let done = DispatchSemaphore(value: 0)

    func expect(_ count: Int) {
        fired.store(0, ordering: .relaxed)
        target.store(count, ordering: .relaxed)
    }

    func fire() {
        let count = fired.wrappingAdd(1, ordering: .relaxed).newValue
        if count == target.load(ordering: .relaxed) {
            lastUptime.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            done.signal()
        }
    }
}

/// One way to run timers, driven the same way by every benchmark.
protocol TimerPeer: AnyObject {
    associatedtype Token
    /// The name used in benchmark names (no spaces).
    static var name: String { get }
    /// The largest number of armed timers this peer is benchmarked at.
    static var maximumArmed: Int { get }
    /// A generous time to arm one timer, so that an expiry benchmark's deadline falls after the last arm.
    static var leadPerTimer: Duration { get }
    /// Whether ``shutdown()`` disposes of every pending timer, so teardown need not cancel them one by one.
    static var shutdownCancelsAll: Bool { get }
    init(capacity: Int, counter: FireCounter)
    /// Runs `body` where the peer's API is meant to be called: SwiftNIO on its event loop, others in place.
    func withOwner(_ body: @escaping () -> Void)
    func arm(after delay: Duration) -> Token
    func arm(atUptime nanoseconds: UInt64) -> Token
    func cancel(_ token: Token)
    func shutdown()
    /// Returns once `count` timers armed with ``arm(after:)`` are really armed (a task has reached its sleep).
    func settle(armed count: Int) async
    /// Returns once `count` cancelled timers have released what they hold (a queue or a task has caught up).
    func settle(cancelled count: Int) async
}

extension TimerPeer {
    static var maximumArmed: Int { 1_000_000 }
    static var leadPerTimer: Duration { .microseconds(3) }
    static var shutdownCancelsAll: Bool { false }
    func withOwner(_ body: @escaping () -> Void) { body() }
    func shutdown() {}
    func settle(armed count: Int) async {}
    func settle(cancelled count: Int) async {}
}

/// One started ``TempoTimer`` per timer (a one-shot), on `SystemScheduler.shared`.
final class TempoTimerPeer: TimerPeer {
    static let name = "TempoTimer"
    static let maximumArmed = 100_000
    let counter: FireCounter

    init(capacity: Int, counter: FireCounter) { self.counter = counter }

    func arm(after delay: Duration) -> TempoTimer {
        try! TempoTimer(.after(delay)) { [counter] _ in counter.fire() }.start()
    }
    func arm(atUptime nanoseconds: UInt64) -> TempoTimer {
        try! TempoTimer(.at(.monotonic(TimerInstant(offset: .nanoseconds(Int64(nanoseconds)))))) { [counter] _ in
            counter.fire()
        }.start()
    }
    func cancel(_ token: TempoTimer) { token.cancel() }
}

/// Hands every fired value timer to the counter.
final class CountingHandler: TimingWheelHandler {
    let counter: FireCounter
    init(counter: FireCounter) { self.counter = counter }
    func timerFired(value: UInt64) { counter.fire() }
}

/// Tempo's wheel with value timers and a shared handler (the allocation-free path), on `SystemScheduler`,
/// callbacks on the driver thread.
final class WheelValuePeer: TimerPeer {
    static let name = "Wheel"
    let wheel: TimingWheel

    init(capacity: Int, counter: FireCounter) {
        let configuration = TimingWheel.Configuration(delivery: .immediate, initialCapacity: capacity)
        wheel = try! TimingWheel(configuration: configuration, handler: CountingHandler(counter: counter))
    }

    func arm(after delay: Duration) -> TimingWheel.Handle { try! wheel.schedule(after: delay, value: 1) }
    func arm(atUptime nanoseconds: UInt64) -> TimingWheel.Handle {
        try! wheel.schedule(at: .monotonic(TimerInstant(offset: .nanoseconds(Int64(nanoseconds)))), value: 1)
    }
    func cancel(_ token: TimingWheel.Handle) { wheel.cancel(token) }
}

/// Tempo's wheel with value timers armed at a precomputed deadline (`schedule(at:value:)`): the wheel's
/// own cost, without the clock read that `schedule(after:)` and every peer's relative API make.
/// The wheel is ``WheelValuePeer``'s; only `arm(after:)` differs.
final class WheelDeadlinePeer: TimerPeer {
    static let name = "WheelAtDeadline"
    let wheel: TimingWheel
    let values: WheelValuePeer
    let base: TimerInstant

    init(capacity: Int, counter: FireCounter) {
        values = WheelValuePeer(capacity: capacity, counter: counter)
        wheel = values.wheel
        base = wheel.now
    }

    func arm(after delay: Duration) -> TimingWheel.Handle {
        try! wheel.schedule(at: .monotonic(base + delay), value: 1)
    }
    func arm(atUptime nanoseconds: UInt64) -> TimingWheel.Handle { values.arm(atUptime: nanoseconds) }
    func cancel(_ token: TimingWheel.Handle) { wheel.cancel(token) }
}

/// Tempo's wheel with a closure per timer.
final class WheelClosurePeer: TimerPeer {
    static let name = "WheelClosure"
    let wheel: TimingWheel
    let counter: FireCounter

    init(capacity: Int, counter: FireCounter) {
        self.counter = counter
        let configuration = TimingWheel.Configuration(delivery: .immediate, initialCapacity: capacity)
        wheel = try! TimingWheel(configuration: configuration)
    }

    func arm(after delay: Duration) -> TimingWheel.Handle {
        try! wheel.schedule(after: delay) { [counter] in counter.fire() }
    }
    func arm(atUptime nanoseconds: UInt64) -> TimingWheel.Handle {
        try! wheel.schedule(at: .monotonic(TimerInstant(offset: .nanoseconds(Int64(nanoseconds))))) { [counter] in
            counter.fire()
        }
    }
    func cancel(_ token: TimingWheel.Handle) { wheel.cancel(token) }
}

/// One `DispatchSourceTimer` per timer, all on one serial queue.
final class DispatchPeer: TimerPeer {
    static let name = "DispatchSource"
    static let maximumArmed = 100_000
    static let leadPerTimer = Duration.microseconds(20)
    let queue = DispatchQueue(label: "bench.dispatch")
    let counter: FireCounter

    init(capacity: Int, counter: FireCounter) { self.counter = counter }

    func arm(after delay: Duration) -> any DispatchSourceTimer {
        arm(atUptime: DispatchTime.now().uptimeNanoseconds + UInt64(delay.wholeNanoseconds))
    }
    func arm(atUptime nanoseconds: UInt64) -> any DispatchSourceTimer {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: DispatchTime(uptimeNanoseconds: nanoseconds), leeway: .nanoseconds(0))
        source.setEventHandler { [counter] in counter.fire() }
        source.resume()
        return source
    }
    func cancel(_ token: any DispatchSourceTimer) { token.cancel() }
    /// Cancellation completes on the queue.
    func settle(cancelled count: Int) async { queue.sync {} }
}

/// A `Task` per timer that sleeps in `Task.sleep` and is cancelled with `Task.cancel()`.
final class TaskSleepPeer: TimerPeer {
    static let name = "TaskSleep"
    static let maximumArmed = 100_000
    static let leadPerTimer = Duration.microseconds(30)
    let counter: FireCounter
    let progress = TaskProgress()

    init(capacity: Int, counter: FireCounter) { self.counter = counter }

    func arm(after delay: Duration) -> Task<Void, Never> {
        Task.detached { [counter, progress] in
            progress.sleeping.add(1, ordering: .relaxed)
            defer { progress.ended.add(1, ordering: .relaxed) }
            do {
                try await Task.sleep(for: delay)
                counter.fire()
            } catch {}
        }
    }
    func arm(atUptime nanoseconds: UInt64) -> Task<Void, Never> {
        let delay = Duration.nanoseconds(Int64(nanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds))
        let deadline = SuspendingClock.now + delay
        return Task.detached { [counter] in
            do {
                try await Task.sleep(until: deadline, clock: .suspending)
                counter.fire()
            } catch {}
        }
    }
    func cancel(_ token: Task<Void, Never>) { token.cancel() }
    /// A task is armed once it runs up to its sleep.
    func settle(armed count: Int) async {
        while progress.sleeping.load(ordering: .relaxed) < count { await Task.yield() }
    }
    func settle(cancelled count: Int) async {
        while progress.ended.load(ordering: .relaxed) < count { await Task.yield() }
    }
}

/// How many of a ``TaskSleepPeer``'s tasks (armed with ``TaskSleepPeer/arm(after:)``) reached their sleep, and how
/// many ended.
final class TaskProgress: Sendable {
    let sleeping = Atomic<Int>(0)
    let ended = Atomic<Int>(0)
}
