import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Call orders that crash other timer libraries (over-resume, releasing a suspended Dispatch source,
/// firing a cancelled source). Each runs on the virtual clock and again on the real scheduler.
@Suite struct TimerRegressionTests {
    @Test func pauseThenRelease() throws {
        let clock = VirtualClock()
        weak var weakTimer: TempoTimer?
        do {
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in }
            timer.start()
            timer.pause()
            weakTimer = timer
        }
        #expect(weakTimer == nil)
        #expect(clock.pendingCount == 0)
        do {
            let timer = try TempoTimer(.every(.milliseconds(1))) { _ in }
            timer.start()
            timer.pause()
        }
    }

    @Test func fireOnAFinishedOneShot() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(1))
        #expect(timer.state == .finished)
        #expect(timer.fire())
        #expect(log.all.map(\.isManual) == [false, true])
        #expect(timer.state == .finished)
    }

    @Test func releaseBeforeStart() throws {
        weak var weakTimer: TempoTimer?
        do {
            let timer = try TempoTimer(.every(.seconds(1))) { _ in }
            weakTimer = timer
        }
        #expect(weakTimer == nil)
    }

    @Test func startTwice() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.start()
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1])
        let real = try TempoTimer(.every(.seconds(60))) { _ in }
        real.start()
        real.start()
        real.cancel()
    }

    @Test func cancelBeforeStart() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.cancel()
        #expect(timer.state == .cancelled)
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1])
    }

    @Test func resetFromInsideTheHandler() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let box = TimerBox()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { tick in
            log.record(tick)
            if tick.index == 2 { try? box.timer?.reset(interval: .seconds(5)) }
        }
        box.timer = timer
        timer.start()
        clock.advance(by: .seconds(2))
        #expect(log.indices == [1, 2])
        clock.advance(by: .milliseconds(4_999))
        #expect(log.indices == [1, 2])
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1, 2, 1])
    }

    @Test func restartFromInsideTheFinalTicksHandler() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let box = TimerBox()
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(2)), scheduler: clock) { tick in
            log.record(tick)
            if tick.index == 2 && log.count == 2 { box.timer?.start() }
        }
        box.timer = timer
        timer.start()
        clock.advance(by: .seconds(2))
        #expect(timer.state == .running)
        clock.advance(by: .seconds(2))
        #expect(log.indices == [1, 2, 1, 2])
        #expect(timer.state == .finished)
    }

    @Test func releaseFromInsideItsOwnHandler() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let box = TimerBox()
        weak var weakTimer: TempoTimer?
        do {
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { tick in
                log.record(tick)
                box.timer?.cancel()
                box.timer = nil
            }
            box.timer = timer
            weakTimer = timer
            timer.start()
        }
        clock.advance(by: .seconds(3))
        #expect(log.indices == [1])
        #expect(weakTimer == nil)
    }

    @Test func everyOperationFromInsideTheHandler() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let box = TimerBox()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { tick in
            log.record(tick)
            guard let timer = box.timer, !tick.isManual else { return }
            timer.pause()
            timer.resume()
            timer.fire()
            timer.addObserver { _ in }
            _ = timer.state
            try? timer.setLeeway(.milliseconds(1))
        }
        box.timer = timer
        timer.start()
        clock.advance(by: .seconds(2))
        #expect(log.all.map(\.isManual) == [false, true, false, true])
    }
}

/// A late-bound, weak reference so a handler can reach its own timer without keeping it alive (a strong one
/// would be a cycle: timer, handler, box, timer).
final class TimerBox: Sendable {
    private struct Weak: Sendable {
        weak var timer: TempoTimer?
    }

    private let stored = TempoMutex(Weak())
    var timer: TempoTimer? {
        get { stored.withLock { $0.timer } }
        set { stored.withLock { $0.timer = newValue } }
    }
}
