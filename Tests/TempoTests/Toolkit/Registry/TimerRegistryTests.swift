import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

private final class Target: Sendable {}

// The example of the TimerRegistry article.
private final class InboxPoller: Sendable {
    let registry: TimerRegistry<String>
    let refresh: @Sendable () -> Void

    init(registry: TimerRegistry<String> = .shared, refresh: @escaping @Sendable () -> Void) {
        self.registry = registry
        self.refresh = refresh
    }

    func screenAppeared() throws {
        try registry.schedule("inbox.poll", .every(.seconds(30), first: .after(.zero))) { [refresh] _ in
            refresh()
        }
    }

    func screenDisappeared() {
        registry.cancel("inbox.poll")
    }
}

@Suite struct TimerRegistryTests {
    @Test func scheduledKeyTicksAtItsIntervalAndNotBefore() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("poll", .every(.seconds(1)), log.record)
        clock.advance(by: .milliseconds(999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        #expect(registry.contains("poll"))
        #expect(registry.keys == ["poll"])
        #expect(registry.count == 1)
    }

    @Test func configurationOptionsAreHonoured() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        let schedule = TimerSchedule.every(
            .seconds(2),
            repeats: .times(2),
            first: .after(.milliseconds(500)),
            latePolicy: .burst,
            delivery: .immediate,
            clock: .continuous
        )
        try registry.schedule("k", schedule, log.record)
        clock.advance(by: .milliseconds(499))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        clock.suspend(for: .seconds(10))  // continuous clock moves on: the burst delivers slot 2 at once
        #expect(log.indices == [1, 2])
        #expect(!registry.contains("k"))
    }

    @Test func replacingAKeyCancelsTheOldTimerAndOnlyTheNewOneFires() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let old = TickLog()
        let new = TickLog()
        #expect(try registry.schedule("k", .every(.seconds(1)), old.record) == false)
        clock.advance(by: .milliseconds(500))
        #expect(try registry.schedule("k", .every(.seconds(1)), new.record) == true)
        #expect(clock.pendingCount == 1)  // the old timer's deadline is gone: not leaked
        clock.advance(by: .milliseconds(999))
        #expect(old.count == 0 && new.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(old.count == 0)
        #expect(new.indices == [1])
        #expect(registry.count == 1)
    }

    @Test func replacedTimerDoesNotRunWhenItsTickWasAlreadyDue() throws {
        // Both timers are due at the same instant; the old one's handler replaces the key first.
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TempoMutex<[String]>([])
        try registry.schedule("a", .after(.seconds(1), delivery: .immediate)) { _ in
            log.withLock { $0.append("a") }
            _ = try? registry.schedule("b", .every(.seconds(5), delivery: .immediate)) { _ in
                log.withLock { $0.append("b-new") }
            }
        }
        try registry.schedule("b", .every(.seconds(1), delivery: .immediate)) { _ in log.withLock { $0.append("b-old") }
        }
        clock.advance(by: .seconds(1))
        #expect(log.withLock { $0 } == ["a"])
        clock.advance(by: .seconds(5))
        #expect(log.withLock { $0 }.filter { $0.hasPrefix("b") } == ["b-new"])
    }

    @Test func cancelRemovesTheKeyAndDisarmsItsTimer() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("k", .every(.seconds(1)), log.record)
        #expect(registry.cancel("k"))
        #expect(!registry.cancel("k"))
        #expect(!registry.contains("k"))
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(3))
        #expect(log.count == 0)
    }

    @Test func cancelAllEmptiesTheRegistry() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<Int>(scheduler: clock)
        let log = TickLog()
        for key in 1...5 {
            try registry.schedule(key, .every(.seconds(1)), log.record)
        }
        #expect(Set(registry.keys) == Set(1...5))
        registry.cancelAll()
        #expect(registry.count == 0)
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(2))
        #expect(log.count == 0)
    }

    @Test func pauseAndResumeByKeyKeepTheTimeLeft() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("k", .every(.seconds(1)), log.record)
        clock.advance(by: .milliseconds(300))
        #expect(registry.pause("k"))
        #expect(registry.state(of: "k") == .paused)
        #expect(registry.timeUntilNextTick(of: "k") == .milliseconds(700))
        clock.advance(by: .seconds(10))
        #expect(log.count == 0)
        #expect(registry.resume("k"))
        clock.advance(by: .milliseconds(699))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        #expect(!registry.pause("missing"))
        #expect(!registry.resume("missing"))
    }

    @Test func oneShotAndFiniteTimersRemoveThemselvesWhenFinished() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("once", .after(.seconds(1)), log.record)
        try registry.schedule("thrice", .every(.seconds(1), repeats: .times(3)), log.record)
        try registry.schedule("at", .at(TimerDeadline(clock.now(.wall) + .seconds(2), clock: .wall)), log.record)
        clock.advance(by: .milliseconds(999))
        #expect(registry.count == 3)
        clock.advance(by: .milliseconds(1))
        #expect(Set(registry.keys) == ["thrice", "at"])
        clock.advance(by: .seconds(1))
        #expect(registry.keys == ["thrice"])
        clock.advance(by: .seconds(1))
        #expect(registry.count == 0)
        #expect(log.count == 5)
        #expect(clock.pendingCount == 0)
    }

    @Test func weakTargetEntryEndsWhenTheTargetDies() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let calls = TempoMutex(0)
        var target: Target? = Target()
        try registry.schedule(
            "k", .every(.seconds(1)),
            handler: .weak(target!) { _, _ in
                calls.withLock { $0 += 1 }
            })
        clock.advance(by: .seconds(1))
        #expect(calls.withLock { $0 } == 1)
        target = nil
        #expect(!registry.contains("k"))
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(3))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func weakTargetTimerStopsOnItsNextTickWithoutAQuery() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        var target: Target? = Target()
        try registry.schedule("k", .every(.seconds(1)), handler: .weak(target!) { _, _ in })
        target = nil
        clock.advance(by: .seconds(1))
        #expect(clock.pendingCount == 0)
        #expect(registry.count == 0)
    }

    @Test func emptyKeyIsRejected() throws {
        let registry = TimerRegistry<String>(scheduler: VirtualClock())
        #expect(throws: TempoError.self) { try registry.schedule("", .every(.seconds(1))) { _ in } }
        do {
            try registry.schedule("", .every(.seconds(1))) { _ in }
        } catch {
            #expect(error.code == .invalidKey)
        }
        let arrays = TimerRegistry<[Int]>(scheduler: VirtualClock())
        #expect(throws: TempoError.self) { try arrays.schedule([], .every(.seconds(1))) { _ in } }
        #expect(registry.count == 0)
    }

    @Test func invalidConfigurationLeavesTheExistingTimer() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("k", .every(.seconds(1)), log.record)
        #expect(throws: TempoError.self) { try registry.schedule("k", .every(.zero)) { _ in } }
        #expect(throws: TempoError.self) {
            try registry.schedule("late", .at(.monotonic(clock.now(.monotonic) - .seconds(1)), ifPast: .throw)) { _ in }
        }
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1])
    }

    @Test func handlerMayCancelAndReplaceItsOwnKey() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("self", .every(.seconds(1))) { tick in
            log.record(tick)
            if tick.index == 2 { registry.cancel("self") }
        }
        try registry.schedule("swap", .every(.seconds(1))) { _ in
            _ = try? registry.schedule("swap", .every(.seconds(10)), log.record)
        }
        clock.advance(by: .seconds(5))
        #expect(log.indices == [1, 2])
        #expect(registry.keys == ["swap"])
        clock.advance(by: .seconds(6))
        #expect(log.indices == [1, 2, 1])
    }

    @Test func sharedRegistryUsesStringKeys() throws {
        let key = "TimerRegistryTests.shared"
        try TimerRegistry.shared.schedule(key, .every(.seconds(3600))) { _ in }
        #expect(TimerRegistry.shared.contains(key))
        #expect(TimerRegistry.shared.cancel(key))
    }

    @Test func concurrentScheduleAndCancelFromManyThreadsLeakNothing() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<Int>(scheduler: clock)
        let keys = 8
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<200 {
                let key = (round + worker) % keys
                if round % 3 == 2 {
                    registry.cancel(key)
                } else {
                    _ = try? registry.schedule(key, .every(.seconds(1))) { _ in }
                }
                _ = registry.contains(key)
            }
        }
        #expect(registry.count <= keys)
        // Exactly one armed deadline per key left: no replaced timer leaked.
        #expect(clock.pendingCount == registry.count)
        registry.cancelAll()
        #expect(clock.pendingCount == 0)
    }

    @Test func concurrentReplacementOfOneKeyKeepsExactlyOneTimer() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        let threads = (0..<4).map { _ in
            Thread {
                for _ in 0..<100 {
                    _ = try? registry.schedule("k", .every(.seconds(1)), log.record)
                }
            }
        }
        for thread in threads { thread.start() }
        for thread in threads { thread.join() }
        #expect(registry.count == 1)
        #expect(clock.pendingCount == 1)
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1])
    }

    @Test func articleExamplePollsWhileVisible() throws {
        let clock = VirtualClock()
        let refreshes = TempoMutex(0)
        let poller = InboxPoller(registry: TimerRegistry(scheduler: clock)) { refreshes.withLock { $0 += 1 } }
        try poller.screenAppeared()
        try poller.screenAppeared()
        clock.advance(by: .zero)
        #expect(refreshes.withLock { $0 } == 1)
        clock.advance(by: .seconds(29))
        #expect(refreshes.withLock { $0 } == 1)
        clock.advance(by: .seconds(1))
        #expect(refreshes.withLock { $0 } == 2)
        poller.screenDisappeared()
        #expect(clock.pendingCount == 0)
    }

    @Test func handlerOnASharedQueueMayCancelAnotherKey() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let queue = DispatchQueue(label: "shared")
        try registry.schedule("b", .every(.seconds(5), delivery: .queue(queue))) { _ in }
        try registry.schedule("a", .every(.seconds(1), delivery: .queue(queue))) { _ in registry.cancel("b") }
        clock.advance(by: .seconds(1))
        #expect(!registry.contains("b"))
        #expect(registry.keys == ["a"])
        registry.cancelAll()  // "a" captures the registry: end it so the cycle is broken
    }

    @Test func finiteTimerWhoseLastSlotWasSkippedLeavesTheRegistry() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("k", .every(.seconds(1), repeats: .times(3), latePolicy: .skip, clock: .continuous)) {
            log.record($0)
        }
        clock.advance(by: .seconds(1))
        clock.suspend(for: .seconds(10))  // slots 2 and 3 are skipped: no last tick is delivered
        #expect(log.indices == [1])
        #expect(!registry.contains("k"))
        #expect(clock.pendingCount == 0)
    }
}
