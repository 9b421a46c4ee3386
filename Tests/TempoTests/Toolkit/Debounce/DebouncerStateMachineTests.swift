import Tempo
import Testing

/// The debouncer's bookkeeping as a value: which calls restart the timer, and when a value is due.
@Suite struct DebouncerStateMachineTests {
    private let t0 = TimerInstant(offset: .seconds(10))

    @Test func aCallIsDueOneDelayLaterAndTheTimerKeepsItsInterval() {
        var machine = DebouncerStateMachine<String>(delay: .seconds(1), timerDelay: .seconds(1))
        let result1 = machine.call("a", now: t0)
        #expect(result1 == .restartTimer(interval: nil))
        #expect(machine.isPending)
        let result2 = machine.delayElapsed(now: t0 + .milliseconds(999))
        #expect(result2 == nil)
        let result3 = machine.delayElapsed(now: t0 + .seconds(1))
        #expect(result3 == "a")
        #expect(!machine.isPending)
        let result4 = machine.delayElapsed(now: t0 + .seconds(2))
        #expect(result4 == nil)
    }

    @Test func aLaterCallReplacesTheValueAndMovesTheDeadline() {
        var machine = DebouncerStateMachine<Int>(delay: .seconds(1), timerDelay: .seconds(1))
        _ = machine.call(1, now: t0)
        _ = machine.call(2, now: t0 + .milliseconds(500))
        let result5 = machine.delayElapsed(now: t0 + .seconds(1))
        #expect(result5 == nil)
        let result6 = machine.delayElapsed(now: t0 + .milliseconds(1500))
        #expect(result6 == 2)
    }

    @Test func aNewDelayAppliesFromTheNextCallAndResizesTheTimerOnce() {
        var machine = DebouncerStateMachine<Int>(delay: .seconds(1), timerDelay: .seconds(1))
        _ = machine.call(1, now: t0)
        machine.setDelay(.seconds(3))
        let result7 = machine.delayElapsed(now: t0 + .seconds(1))
        #expect(result7 == 1)  // the pending run kept its deadline
        let result8 = machine.call(2, now: t0)
        #expect(result8 == .restartTimer(interval: .seconds(3)))
        let result9 = machine.call(3, now: t0)
        #expect(result9 == .restartTimer(interval: nil))
    }

    @Test func aZeroDelayRunsOnTheNextTurnWithoutTouchingTheTimersInterval() {
        var machine = DebouncerStateMachine<Int>(delay: .zero, timerDelay: .nanoseconds(1))
        let result10 = machine.call(1, now: t0)
        #expect(result10 == .fireOnNextTurn)
        let result11 = machine.delayElapsed(now: t0)
        #expect(result11 == 1)
        machine.setDelay(.nanoseconds(1))
        let result12 = machine.call(2, now: t0)
        #expect(result12 == .restartTimer(interval: nil))
    }

    @Test func takeIgnoresTheDeadlineAndEmptiesTheMachine() {
        var machine = DebouncerStateMachine<Int?>(delay: .seconds(1), timerDelay: .seconds(1))
        let result13 = machine.take()
        #expect(result13 == nil)
        _ = machine.call(nil, now: t0)
        let result14 = machine.take()
        #expect(result14 == .some(nil))  // a pending `nil` value is still a pending value
        let result15 = machine.take()
        #expect(result15 == nil)
    }
}
