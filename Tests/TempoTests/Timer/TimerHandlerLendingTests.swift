import Dispatch
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// The drain lends a timer's lone first handler to each run (no reference count on its closure, see
/// `TimerHandlers.lend()`): what a handler does to the handlers of its own timer during its run must read as before.
@Suite struct TimerHandlerLendingTests {
    /// Counts ticks (a log of 100,000 ticks would be the test's cost).
    final class TickCounter: Sendable {
        private let count = TempoMutex(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }

    /// Records ticks; its deinit is observed through a weak reference.
    final class Capture: Sendable {
        let log = TickLog()
    }

    @Test func aHandlerThatRemovesItselfIsReleasedOnceItsRunReturns() throws {
        let clock = VirtualClock()
        let box = TimerBox()
        let added = TickLog()
        weak var weakCapture: Capture?
        let timer: TempoTimer
        do {
            let capture = Capture()
            weakCapture = capture
            timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { tick in
                capture.log.record(tick)
                guard let timer = box.timer else { return }
                // The creation handler, lent to this run, counts as registered.
                #expect(timer.removeAllObservers() == 1)
                // Added during the run: called from the next tick on.
                timer.addObserver(added.record)
            }
        }
        box.timer = timer
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(weakCapture == nil, "the removed handler was released when its run returned")
        #expect(added.count == 0)
        clock.advance(by: .seconds(2))
        #expect(added.all.map(\.index) == [2, 3])
        #expect(timer.fireCount == 3)
        timer.cancel()
    }

    @Test func aHandlerRemovedByAnotherDuringTheRunIsReleasedAfterIt() throws {
        let clock = VirtualClock()
        let box = TimerBox()
        weak var weakCapture: Capture?
        let timer: TempoTimer
        do {
            let capture = Capture()
            weakCapture = capture
            timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { tick in
                capture.log.record(tick)
                // An observer added mid-run, then every handler removed: the run goes on with what it started with.
                box.timer?.addObserver { _ in Issue.record("removed before any tick reached it") }
                #expect(box.timer?.removeAllObservers() == 2)
                #expect(capture.log.count == 1, "the run still holds its handler's captures")
            }
        }
        box.timer = timer
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(weakCapture == nil)
        clock.advance(by: .seconds(3))
        #expect(timer.fireCount == 4)
        timer.cancel()
    }

    @Test func aHandlerAddedDuringTheRunComesAfterTheLentOneAndBothStay() throws {
        let clock = VirtualClock()
        let box = TimerBox()
        let order = TickLog()
        let second = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(3)), scheduler: clock) { tick in
            order.record(tick)
            if tick.index == 1 {
                box.timer?.addObserver { tick in
                    second.record(tick)
                    // Called after the first handler of the same tick.
                    #expect(order.all.last?.index == tick.index)
                }
            }
        }
        box.timer = timer
        timer.start()
        clock.advance(by: .seconds(3))
        #expect(order.all.map(\.index) == [1, 2, 3])
        #expect(second.all.map(\.index) == [2, 3])
        // Both handlers are still registered: removing every handler counts two.
        #expect(timer.removeAllObservers() == 2)
    }

    /// Lent and given back as a bare closure through generic code, the handler gained a reabstraction thunk on every
    /// tick: the 100,000th tick's call went through 100,000 thunks and overflowed the stack.
    @Test func aHandlerCalledForManyTicksIsCalledDirectly() throws {
        let clock = VirtualClock()
        let count = TickCounter()
        let timer = try TempoTimer(.every(.milliseconds(1)), scheduler: clock) { _ in count.increment() }.start()
        for _ in 0..<100 { clock.advance(by: .seconds(1)) }
        #expect(count.value == 100_000)
        timer.cancel()
    }

    @Test func theLentHandlerIsBackForEveryLaterRunOnTheRealScheduler() throws {
        let log = TickLog()
        let done = DispatchSemaphore(value: 0)
        let timer = try TempoTimer(.every(.milliseconds(1), repeats: .times(20))) { tick in
            log.record(tick)
            if tick.index == 20 { done.signal() }
        }
        // Started again right after the last tick's handler signalled (its run may still be returning): the handler
        // must be there for the second round, given back by the run that held it.
        for round in 1...2 {
            timer.start()
            // A bound for a stuck timer, not a sleep: the 20 ticks take about 20 ms.
            #expect(done.wait(timeout: .now() + .seconds(60)) == .success, "round \(round)")
        }
        // Each round ends with tick 20, and its ticks stand for all 20 slots: on a busy machine the default late-tick
        // policy folds slots that fell due together into one tick (`missed`).
        let ticks = log.all
        let secondRound = try #require(ticks.indices.dropFirst().first { ticks[$0].index <= ticks[$0 - 1].index })
        for round in [ticks[..<secondRound], ticks[secondRound...]] {
            #expect(round.last?.index == 20)
            #expect(round.reduce(0) { $0 + 1 + $1.missed } == 20)
        }
        #expect(timer.removeAllObservers() == 1)
    }
}
