import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Issue #10: the registry lost the last tick of one-shot and finite timers when it was queried while that tick
/// waited for delivery (a query pruned the `.finished` entry, and the handler wrapper then skipped the handler).
@Suite struct TimerRegistryLastTickTests {
    @Test func oneShotFiresOnceWhenTheRegistryIsQueriedWhileItsTickIsQueued() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let queue = DispatchQueue(label: "busy")
        let fired = TempoMutex(0)
        let gate = DispatchSemaphore(value: 0)
        let sawFinished = TempoMutex(false)
        let containedWhileQueued = TempoMutex<Bool?>(nil)
        try registry.schedule("k", .after(.seconds(1), delivery: .queue(queue))) { _ in fired.withLock { $0 += 1 } }
        queue.async { gate.wait() }  // the delivery queue is busy
        DispatchQueue.global().async {
            while registry.state(of: "k") != .finished {}  // the last tick is queued
            sawFinished.withLock { $0 = true }
            containedWhileQueued.withLock { $0 = registry.contains("k") }  // pruned the entry before the fix
            _ = registry.keys
            _ = registry.count
            gate.signal()
        }
        clock.advance(by: .seconds(1))
        #expect(fired.withLock { $0 } == 1)
        #expect(sawFinished.withLock { $0 })
        #expect(containedWhileQueued.withLock { $0 } == true)
        #expect(!registry.contains("k"))  // gone once its handler ran
        #expect(registry.state(of: "k") == nil)
    }

    @Test func burstOfFiniteTicksAllRunWhenHandlersQueryTheirOwnKey() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let runs = TempoMutex<[Int]>([])
        let containedInHandler = TempoMutex<[Bool]>([])
        try registry.schedule(
            "k", .every(.seconds(1), repeats: .times(3), latePolicy: .burst, delivery: .immediate, clock: .continuous)
        ) { tick in
            containedInHandler.withLock { $0.append(registry.contains("k")) }
            runs.withLock { $0.append(tick.index) }
        }
        clock.suspend(for: .seconds(10))  // all three slots fall due at once and are queued together
        #expect(runs.withLock { $0 } == [1, 2, 3])
        #expect(containedInHandler.withLock { $0 } == [true, true, true])
        #expect(!registry.contains("k"))
    }

    @Test func skipPolicyThatDropsTheLastSlotLeavesTheRegistryAtOnce() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let runs = TempoMutex(0)
        try registry.schedule("k", .every(.seconds(1), repeats: .times(2), latePolicy: .skip, clock: .continuous)) {
            _ in
            runs.withLock { $0 += 1 }
        }
        clock.suspend(for: .seconds(5))  // both slots are late: skip drops them, and the timer ends
        #expect(runs.withLock { $0 } == 0)
        #expect(!registry.contains("k"))
        #expect(registry.count == 0)
    }
}
