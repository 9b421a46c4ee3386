import Dispatch
import Tempo
import TempoTesting
import Testing

/// Trap 4 of issue #10: the everyday conveniences of the systems Tempo replaces.
@Suite struct EverydayConvenienceTests {
    @Test func removeAllObserversRemovesTheInitialHandlerToo() throws {
        let clock = VirtualClock()
        let first = TickLog()
        let added = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, first.record).start()
        timer.addObserver(added.record)
        clock.advance(by: .seconds(1))
        #expect(timer.removeAllObservers() == 2)
        clock.advance(by: .seconds(1))
        #expect(first.count == 1)
        #expect(added.count == 1)
        #expect(timer.state == .running)
        #expect(timer.fireCount == 2)
        timer.cancel()
    }

    @Test func removeAllObserversThenCancelFromAHandlerStopsTheTimer() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record).start()
        timer.addObserver { [weak timer] _ in
            timer?.removeAllObservers()
            timer?.cancel()
        }
        clock.advance(by: .seconds(5))
        #expect(log.count == 1)
        #expect(timer.state == .cancelled)
        #expect(clock.pendingCount == 0)
        #expect(timer.removeAllObservers() == 0)
    }

    @Test func fireThenPauseRunsTheHandlerOnceAndKeepsTheTimeLeft() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(10)), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(4))
        #expect(timer.fire())
        timer.pause()
        #expect(log.all.map(\.isManual) == [true])
        #expect(timer.state == .paused)
        #expect(timer.timeUntilNextTick == .seconds(6))
        clock.advance(by: .seconds(60))
        #expect(log.count == 1)
        timer.resume()
        clock.advance(by: .seconds(6))
        #expect(log.all.map(\.isManual) == [true, false])
        #expect(timer.fire())
        #expect(timer.state == .running)
        timer.cancel()
        #expect(!timer.fire())
        #expect(timer.state == .cancelled)
    }

    @Test func timersAreEqualOnlyToThemselves() throws {
        let clock = VirtualClock()
        let a = try TempoTimer(.every(.seconds(1)), scheduler: clock)
        let b = try TempoTimer(.every(.seconds(1)), scheduler: clock)
        #expect(a == a)
        #expect(a != b)
        var set: Set<TempoTimer> = [a, b, a]
        #expect(set.count == 2)
        set.remove(a)
        #expect(set == [b])
        let byTimer: [TempoTimer: String] = [a: "a", b: "b"]
        #expect(byTimer[b] == "b")
    }

    @Test func registryTargetFormNeedsNoConfigurationAndEndsWithItsTarget() throws {
        final class Screen: Sendable {
            let log = TickLog()
        }
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        var screen: Screen? = Screen()
        let log = try #require(screen?.log)
        try registry.schedule(
            "refresh", .every(.seconds(2), repeats: .times(5)),
            handler: .weak(try #require(screen)) {
                screen, tick in screen.log.record(tick)
            })
        clock.advance(by: .milliseconds(1_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        screen = nil
        #expect(!registry.contains("refresh"))
        clock.advance(by: .seconds(10))
        #expect(log.indices == [1])
        #expect(clock.pendingCount == 0)
    }

    @Test func registryOneShotTargetFormFiresOnceWhileTheTargetLives() throws {
        final class Owner: Sendable {}
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        let owner = Owner()
        try registry.schedule("once", .after(.seconds(3)), handler: .weak(owner) { _, tick in log.record(tick) })
        clock.advance(by: .seconds(3))
        #expect(log.count == 1)
        #expect(!registry.contains("once"))
        withExtendedLifetime(owner) {}
    }

    @Test func aZeroDelayDebouncerCoalescesABurstIntoTheDeliverysNextTurn() throws {
        // Real time: the burst is made on the delivery queue itself, so the run cannot start before it ends.
        let log = RunLog<Int>()
        let queue = DispatchQueue(label: "debounce")
        let ran = DispatchSemaphore(value: 0)
        let debouncer = try Debouncer<Int>(delay: .zero, delivery: .queue(queue)) { value in
            log.record(value)
            ran.signal()
        }
        queue.sync {
            for value in 1...5 { debouncer.call(value) }
            #expect(log.all.isEmpty)
        }
        #expect(ran.wait(timeout: .now() + .seconds(30)) == .success)
        queue.sync {}
        #expect(log.all == [5])
    }

    @Test func aZeroDelayDebouncerRunsBeforeCallReturnsOnAVirtualClock() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let debouncer = try Debouncer<Int>(delay: .zero, scheduler: clock, action: log.record)
        debouncer.call(1)
        #expect(log.all == [1])
        #expect(debouncer.cancel() == false)
        debouncer.call(2)  // a cancelled debouncer takes calls again
        #expect(log.all == [1, 2])
        try debouncer.setDelay(.seconds(1))
        debouncer.call(3)
        clock.advance(by: .milliseconds(999))
        #expect(log.all == [1, 2])
        clock.advance(by: .milliseconds(1))
        #expect(log.all == [1, 2, 3])
        try debouncer.setDelay(.zero)
        debouncer.call(4)
        #expect(log.all == [1, 2, 3, 4])
        clock.advance(by: .seconds(5))
        #expect(log.all == [1, 2, 3, 4])
    }
}
