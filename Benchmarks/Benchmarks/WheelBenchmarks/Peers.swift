import Dispatch
import NIOCore
import NIOPosix
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
}

extension TimerPeer {
    static var maximumArmed: Int { 1_000_000 }
    static var leadPerTimer: Duration { .microseconds(3) }
    static var shutdownCancelsAll: Bool { false }
    func withOwner(_ body: @escaping () -> Void) { body() }
    func shutdown() {}
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
        try! wheel.schedule(at: TimerInstant(offset: .nanoseconds(Int64(nanoseconds))), value: 1)
    }
    func cancel(_ token: TimingWheel.Handle) { wheel.cancel(token) }
}

/// Tempo's wheel with value timers armed at a precomputed deadline (`schedule(at:value:)`): the wheel's
/// own cost, without the clock read that `schedule(after:)` and every peer's relative API make.
final class WheelDeadlinePeer: TimerPeer {
    static let name = "WheelAtDeadline"
    let wheel: TimingWheel
    let base: TimerInstant

    init(capacity: Int, counter: FireCounter) {
        let configuration = TimingWheel.Configuration(delivery: .immediate, initialCapacity: capacity)
        wheel = try! TimingWheel(configuration: configuration, handler: CountingHandler(counter: counter))
        base = wheel.now
    }

    func arm(after delay: Duration) -> TimingWheel.Handle { try! wheel.schedule(at: base + delay, value: 1) }
    func arm(atUptime nanoseconds: UInt64) -> TimingWheel.Handle {
        try! wheel.schedule(at: TimerInstant(offset: .nanoseconds(Int64(nanoseconds))), value: 1)
    }
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
        try! wheel.schedule(at: TimerInstant(offset: .nanoseconds(Int64(nanoseconds)))) { [counter] in counter.fire() }
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
}

/// A closure that runs on the event loop while the caller waits for it (`withOwner`), so nothing it
/// touches is used by two threads at once.
struct Unchecked<Value>: @unchecked Sendable {
    var value: Value
}

/// SwiftNIO `scheduleTask` on one event loop, called on that loop.
final class NIOTaskPeer: TimerPeer {
    static let name = "NIOScheduleTask"
    static let shutdownCancelsAll = true  // cancelling one by one scans the loop's queue each time
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop: any EventLoop
    let counter: FireCounter

    init(capacity: Int, counter: FireCounter) {
        self.counter = counter
        loop = group.next()
    }

    func withOwner(_ body: @escaping () -> Void) {
        let box = Unchecked(value: body)
        try! loop.submit { box.value() }.wait()
    }
    func arm(after delay: Duration) -> Scheduled<Void> {
        loop.scheduleTask(in: .nanoseconds(delay.wholeNanoseconds)) { [counter] in
            counter.fire()
        }
    }
    func arm(atUptime nanoseconds: UInt64) -> Scheduled<Void> {
        loop.scheduleTask(deadline: .uptimeNanoseconds(nanoseconds)) { [counter] in counter.fire() }
    }
    func cancel(_ token: Scheduled<Void>) { token.cancel() }
    func shutdown() { try? group.syncShutdownGracefully() }
}

/// SwiftNIO `scheduleCallback` (NIOScheduledCallbackHandler) on one event loop, called on that loop.
final class NIOCallbackPeer: TimerPeer {
    struct Handler: NIOScheduledCallbackHandler, Sendable {
        let counter: FireCounter
        func handleScheduledCallback(eventLoop: some EventLoop) { counter.fire() }
    }

    static let name = "NIOScheduleCallback"
    static let shutdownCancelsAll = true
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop: any EventLoop
    let handler: Handler

    init(capacity: Int, counter: FireCounter) {
        handler = Handler(counter: counter)
        loop = group.next()
    }

    func withOwner(_ body: @escaping () -> Void) {
        let box = Unchecked(value: body)
        try! loop.submit { box.value() }.wait()
    }
    func arm(after delay: Duration) -> NIOScheduledCallback {
        try! loop.scheduleCallback(in: .nanoseconds(delay.wholeNanoseconds), handler: handler)
    }
    func arm(atUptime nanoseconds: UInt64) -> NIOScheduledCallback {
        try! loop.scheduleCallback(at: .uptimeNanoseconds(nanoseconds), handler: handler)
    }
    func cancel(_ token: NIOScheduledCallback) { token.cancel() }
    func shutdown() { try? group.syncShutdownGracefully() }
}

/// A `Task` per timer that sleeps in `Task.sleep` and is cancelled with `Task.cancel()`.
final class TaskSleepPeer: TimerPeer {
    static let name = "TaskSleep"
    static let maximumArmed = 100_000
    static let leadPerTimer = Duration.microseconds(30)
    let counter: FireCounter

    init(capacity: Int, counter: FireCounter) { self.counter = counter }

    func arm(after delay: Duration) -> Task<Void, Never> {
        Task.detached { [counter] in
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
}

extension Duration {
    /// The duration in whole nanoseconds (benchmarks use whole-nanosecond delays).
    var wholeNanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
