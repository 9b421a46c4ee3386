import Tempo
import TempoTesting
import Testing

/// Trap 2 of issue #10: the handler given at creation can reach its own timer, without a retain cycle.
@Suite struct TimerAwareHandlerTests {
    @Test func aHandlerCancelsItsOwnTimerAfterACondition() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { timer, tick in
            log.record(tick)
            if tick.index == 3 { timer.cancel() }
        }.start()
        clock.advance(by: .seconds(10))
        #expect(log.indices == [1, 2, 3])
        #expect(timer.state == .cancelled)
        #expect(clock.pendingCount == 0)
    }

    @Test func aOneShotHandlerResetsItsTimerToRunAgain() throws {
        // Repeat's `Repeater.once(after:) { timer in timer.reset(nil) }`.
        let clock = VirtualClock()
        let log = TickLog()
        try TempoTimer(.after(.seconds(2)), scheduler: clock) { timer, tick in
            log.record(tick)
            if log.count < 3 { try? timer.reset() }
        }.start()
        clock.advance(by: .milliseconds(1_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.count == 1)
        clock.advance(by: .seconds(10))
        #expect(log.all.map(\.due.offset) == [.seconds(2), .seconds(4), .seconds(6)])
    }

    @Test func theInitializerFormIsIdleAndPassesTheSameTimer() throws {
        let clock = VirtualClock()
        let seen = TickLog()
        let box = WeakBox<TempoTimer>()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock) { timer, tick in
            #expect(timer === box.object)
            seen.record(tick)
        }
        box.object = timer
        #expect(timer.state == .idle)
        clock.advance(by: .seconds(1))
        #expect(seen.count == 0)
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(seen.count == 1)
    }

    @Test func aTimerWhoseHandlerUsesItIsFreedOnceReleased() throws {
        let clock = VirtualClock()
        let box = WeakBox<TempoTimer>()
        do {
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { timer, _ in timer.pause() }
            box.object = timer
            timer.start()
            clock.advance(by: .seconds(1))  // the handler paused it: only our reference is left
            #expect(timer.state == .paused)
        }
        #expect(box.object == nil)
    }

    @Test func aRunningTimerThatCancelsItselfIsFreed() throws {
        let clock = VirtualClock()
        let box = WeakBox<TempoTimer>()
        try { () throws(TempoError) in
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { timer, _ in timer.cancel() }.start()
            box.object = timer
        }()
        #expect(box.object != nil)  // running: the scheduler holds it
        clock.advance(by: .seconds(1))
        #expect(box.object == nil)
    }
}

/// A weak reference that a `Sendable` closure may read.
final class WeakBox<Object: AnyObject & Sendable>: @unchecked Sendable {
    // Written before the closures that read it run, on the test's thread, and read on delivery afterwards.
    weak var object: Object?
}
