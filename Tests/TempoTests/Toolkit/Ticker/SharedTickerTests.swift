import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

private final class TickerOwner: Sendable {}

/// Records which subscriber ran at which ticker tick, in call order.
private final class CallLog: Sendable {
    private let calls = TempoMutex<[String]>([])
    var all: [String] { calls.withLock { $0 } }
    func record(_ name: String, _ tick: TimerTick) { calls.withLock { $0.append("\(name)@\(tick.index)") } }
    func reset() { calls.withLock { $0.removeAll() } }
}

// The example of the SharedTicker article.
private final class ClockLabel: Sendable {
    let subscription: TickerSubscription

    init(ticker: SharedTicker, render: @escaping @Sendable () -> Void) throws {
        subscription = try ticker.subscribe(everyNth: 4) { _ in render() }
    }
}

@Suite struct SharedTickerTests {
    @Test func noTimerIsArmedUntilTheFirstSubscriberAndAfterTheLastLeaves() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        #expect(clock.pendingCount == 0)
        let a = try ticker.subscribe { _ in }
        #expect(clock.pendingCount == 1)
        #expect(ticker.isTicking)
        let b = try ticker.subscribe { _ in }
        #expect(clock.pendingCount == 1)
        a.cancel()
        #expect(clock.pendingCount == 1)
        b.cancel()
        #expect(clock.pendingCount == 0)
        #expect(!ticker.isTicking)
        #expect(ticker.subscriberCount == 0)
    }

    @Test func firstSubscriberStartsAFreshGrid() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = TickLog()
        clock.advance(by: .milliseconds(1500))
        let subscription = try ticker.subscribe(log.record)
        clock.advance(by: .milliseconds(999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        subscription.cancel()
        clock.advance(by: .milliseconds(300))
        let again = try ticker.subscribe(log.record)
        clock.advance(by: .milliseconds(999))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1, 1])
        withExtendedLifetime(again) {}
    }

    @Test func subscribersAreCalledInSubscriptionOrder() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = CallLog()
        let tokens = try ["a", "b", "c", "d"].map { name in try ticker.subscribe { log.record(name, $0) } }
        clock.advance(by: .seconds(2))
        #expect(log.all == ["a@1", "b@1", "c@1", "d@1", "a@2", "b@2", "c@2", "d@2"])
        withExtendedLifetime(tokens) {}
    }

    @Test func releasingTheTokenEndsTheSubscription() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = TickLog()
        var token: TickerSubscription? = try ticker.subscribe(log.record)
        clock.advance(by: .seconds(1))
        #expect(log.count == 1)
        token = nil
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(3))
        #expect(log.count == 1)
        _ = token
    }

    @Test func ownerSubscriptionEndsWhenTheOwnerDiesWithoutCleanup() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let calls = TempoMutex(0)
        var owner: TickerOwner? = TickerOwner()
        _ = try ticker.subscribe(handler: .weak(owner!) { _, _ in calls.withLock { $0 += 1 } })  // token discarded
        clock.advance(by: .seconds(2))
        #expect(calls.withLock { $0 } == 2)
        owner = nil
        #expect(ticker.subscriberCount == 0)
        clock.advance(by: .seconds(1))  // the next tick drops it and stops the timer
        #expect(calls.withLock { $0 } == 2)
        #expect(clock.pendingCount == 0)
    }

    @Test func everyNthTickSubscribersShareOneTicker() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.milliseconds(250)), scheduler: clock)
        let log = CallLog()
        let fast = try ticker.subscribe { log.record("250ms", $0) }
        let second = try ticker.subscribe(everyNth: 4) { log.record("1s", $0) }
        let five = try ticker.subscribe(everyNth: 20) { log.record("5s", $0) }
        clock.advance(by: .milliseconds(999))
        #expect(!log.all.contains { $0.hasPrefix("1s") })
        clock.advance(by: .milliseconds(1))
        #expect(log.all.last == "1s@4")
        clock.advance(by: .milliseconds(3999))
        #expect(!log.all.contains { $0.hasPrefix("5s") })
        clock.advance(by: .milliseconds(1))
        #expect(log.all.filter { $0.hasPrefix("1s") } == ["1s@4", "1s@8", "1s@12", "1s@16", "1s@20"])
        #expect(log.all.filter { $0.hasPrefix("5s") } == ["5s@20"])
        #expect(log.all.filter { $0.hasPrefix("250ms") }.count == 20)
        #expect(clock.pendingCount == 1)
        withExtendedLifetime((fast, second, five)) {}
    }

    @Test func everyNthCountsFromTheSubscription() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = TickLog()
        let base = try ticker.subscribe { _ in }
        clock.advance(by: .seconds(1))
        let third = try ticker.subscribe(everyNth: 3, log.record)
        clock.advance(by: .seconds(2))
        #expect(log.count == 0)
        clock.advance(by: .seconds(1))
        #expect(log.indices == [4])
        withExtendedLifetime((base, third)) {}
    }

    @Test func coalescedTickCallsAnEveryNthSubscriberWhoseSlotItFoldedIn() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1), clock: .continuous), scheduler: clock)
        let log = TickLog()
        let third = try ticker.subscribe(everyNth: 3, log.record)
        clock.advance(by: .seconds(1))
        clock.suspend(for: .seconds(4))  // slots 2...5 folded into one tick: slot 3 was due
        #expect(log.count == 1)
        #expect(log.all.first?.missed == 3)
        clock.advance(by: .seconds(1))  // slot 6
        #expect(log.count == 2)
        withExtendedLifetime(third) {}
    }

    @Test func pauseAndResumeApplyToEverySubscriber() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = TickLog()
        let a = try ticker.subscribe(log.record)
        let b = try ticker.subscribe(log.record)
        clock.advance(by: .milliseconds(400))
        ticker.pause()
        #expect(ticker.isPaused)
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(5))
        #expect(log.count == 0)
        ticker.resume()
        clock.advance(by: .milliseconds(599))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.count == 2)
        withExtendedLifetime((a, b)) {}
    }

    @Test func subscribingWhilePausedArmsNothingUntilResume() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        ticker.pause()
        let log = TickLog()
        let a = try ticker.subscribe(log.record)
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(3))
        #expect(log.count == 0)
        ticker.resume()
        #expect(clock.pendingCount == 1)
        clock.advance(by: .seconds(1))
        #expect(log.count == 1)
        withExtendedLifetime(a) {}
    }

    @Test func subscriberAddedDuringATickStartsOnTheNextTick() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = CallLog()
        let added = TempoMutex<TickerSubscription?>(nil)
        let first = try ticker.subscribe { tick in
            log.record("first", tick)
            if tick.index == 1 {
                let late = try? ticker.subscribe { log.record("late", $0) }
                added.withLock { $0 = late }
            }
        }
        clock.advance(by: .seconds(1))
        #expect(log.all == ["first@1"])
        clock.advance(by: .seconds(1))
        #expect(log.all == ["first@1", "first@2", "late@2"])
        withExtendedLifetime(first) {}
    }

    @Test func subscriberRemovedDuringATickIsNotCalledLaterInThatTick() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = CallLog()
        let victim = TempoMutex<TickerSubscription?>(nil)
        let killer = try ticker.subscribe { tick in
            log.record("killer", tick)
            victim.withLock { $0?.cancel() }
        }
        victim.withLock { $0 = try? ticker.subscribe { log.record("victim", $0) } }
        let other = try ticker.subscribe { log.record("other", $0) }
        clock.advance(by: .seconds(1))
        #expect(log.all == ["killer@1", "other@1"])
        withExtendedLifetime((killer, other)) {}
    }

    @Test func subscriberMayCancelItselfDuringItsTick() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let log = TickLog()
        let token = TempoMutex<TickerSubscription?>(nil)
        token.withLock {
            $0 = try? ticker.subscribe { tick in
                log.record(tick)
                token.withLock { $0?.cancel() }
            }
        }
        clock.advance(by: .seconds(3))
        #expect(log.indices == [1])
        #expect(clock.pendingCount == 0)
    }

    @Test func invalidArgumentsThrow() throws {
        let clock = VirtualClock()
        #expect(throws: TempoError.self) { try SharedTicker(.every(.zero), scheduler: clock) }
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        #expect(throws: TempoError.self) { try ticker.subscribe(everyNth: 0) { _ in } }
        #expect(clock.pendingCount == 0)
    }

    @Test func manySubscribersLeavingCompactsAndKeepsOrder() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1), delivery: .immediate), scheduler: clock)
        let log = TempoMutex<[Int]>([])
        var tokens = try (0..<100).map { i in try ticker.subscribe { _ in log.withLock { $0.append(i) } } }
        for i in stride(from: 0, to: 100, by: 3).reversed() { tokens.remove(at: i) }
        clock.advance(by: .seconds(1))
        #expect(log.withLock { $0 } == (0..<100).filter { $0 % 3 != 0 })
        #expect(ticker.subscriberCount == tokens.count)
    }

    @Test func concurrentSubscribeAndCancelWhileTicking() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.milliseconds(10), delivery: .immediate), scheduler: clock)
        let calls = Atomic<Int>(0)
        let keep = try ticker.subscribe { _ in calls.add(1, ordering: .relaxed) }
        Thread.run(4) { worker in
            if worker == 0 {
                for _ in 0..<200 { clock.advance(by: .milliseconds(10)) }
            } else {
                for _ in 0..<200 {
                    let token = try? ticker.subscribe { _ in calls.add(1, ordering: .relaxed) }
                    _ = token?.isActive
                    token?.cancel()
                }
            }
        }
        #expect(ticker.subscriberCount == 1)
        #expect(calls.load(ordering: .relaxed) >= 200)
        keep.cancel()
        #expect(clock.pendingCount == 0)
    }

    @Test func articleExampleLabelRendersOncePerSecond() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.milliseconds(250)), scheduler: clock)
        let renders = TempoMutex(0)
        var label: ClockLabel? = try ClockLabel(ticker: ticker) { renders.withLock { $0 += 1 } }
        clock.advance(by: .milliseconds(999))
        #expect(renders.withLock { $0 } == 0)
        clock.advance(by: .milliseconds(1))
        #expect(renders.withLock { $0 } == 1)
        label = nil
        #expect(clock.pendingCount == 0)
        _ = label
    }
}
