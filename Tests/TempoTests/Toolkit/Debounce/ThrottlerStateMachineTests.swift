import Tempo
import Testing

/// The throttler's windows as a value: outcomes and timer actions for each edge, no clock.
@Suite struct ThrottlerStateMachineTests {
    @Test func leadingRunsTheFirstCallAndDropsTheRestOfTheWindow() {
        var machine = ThrottlerStateMachine<Int>(edge: .leading)
        let result1 = machine.call(1)
        #expect(result1 == (.ranNow, .startTimerAndFire))
        let result2 = machine.call(2)
        #expect(result2 == (.dropped, .none))
        let result3 = machine.leadingRunStarted()
        #expect(result3 == 1)
        guard case .none = machine.windowEnded() else {
            Issue.record("a leading window ran a trailing value")
            return
        }
        #expect(!machine.isWindowOpen)
        let result4 = machine.call(3)
        #expect(result4 == (.ranNow, .startTimerAndFire))
    }

    @Test func trailingRunsTheLastCallWhenTheWindowEndsAndOpensTheNext() {
        var machine = ThrottlerStateMachine<Int>(edge: .trailing)
        let result5 = machine.call(1)
        #expect(result5 == (.deferred, .startTimer))
        let result6 = machine.call(2)
        #expect(result6 == (.deferred, .startTimer))
        guard case .runTrailing(2) = machine.windowEnded() else {
            Issue.record("the window's last call did not run")
            return
        }
        #expect(machine.isWindowOpen)
        guard case .none = machine.windowEnded() else {
            Issue.record("an empty window ran something")
            return
        }
        #expect(!machine.isWindowOpen)
    }

    @Test func bothRunsTheFirstAtOnceAndTheLastAtTheEnd() {
        var machine = ThrottlerStateMachine<Int>(edge: .both)
        let result7 = machine.call(1)
        #expect(result7 == (.ranNow, .startTimerAndFire))
        let result8 = machine.call(2)
        #expect(result8 == (.deferred, .none))
        let result9 = machine.call(3)
        #expect(result9 == (.deferred, .none))
        let result10 = machine.leadingRunStarted()
        #expect(result10 == 1)
        guard case .runTrailing(3) = machine.windowEnded() else {
            Issue.record("the trailing value did not run")
            return
        }
    }

    @Test func cancelDropsWaitingValuesAndALeadingRunNotYetStarted() {
        var machine = ThrottlerStateMachine<Int>(edge: .both)
        let nothingWaited = machine.cancel()
        #expect(!nothingWaited)
        _ = machine.call(1)
        let leadingWaited = machine.cancel()
        #expect(leadingWaited)
        let result11 = machine.leadingRunStarted()
        #expect(result11 == nil)
        guard case .none = machine.windowEnded() else {
            Issue.record("a cancelled window ran something")
            return
        }
    }

    @Test func aLeadingRunOutlivesAWindowThatEndedBeforeItStarted() {
        var machine = ThrottlerStateMachine<Int>(edge: .leading)
        _ = machine.call(1)
        _ = machine.windowEnded()
        #expect(!machine.isWindowOpen)
        let result12 = machine.leadingRunStarted()
        #expect(result12 == 1)
    }
}
