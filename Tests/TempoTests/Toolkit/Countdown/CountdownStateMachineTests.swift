import Tempo
import Testing

/// The countdown's lifecycle as a value: events in, actions out, no clock and no timer running.
@Suite struct CountdownStateMachineTests {
    private let t0 = TimerInstant(offset: .seconds(100))

    private func machine(_ duration: Duration = .seconds(10)) -> CountdownStateMachine {
        CountdownStateMachine(duration: duration, period: .seconds(1))
    }

    @discardableResult
    private func arm(_ action: CountdownStateMachine.StartAction) throws -> CountdownStateMachine.Arm {
        guard case .arm(let arm) = action else { throw Unexpected(action: "\(action)") }
        return arm
    }

    private struct Unexpected: Error {
        let action: String
    }

    @Test func startFromIdleArmsARunTowardNowPlusTheDuration() throws {
        var machine = machine()
        let arm = try arm(machine.start(now: t0))
        #expect(arm.deadline == t0 + .seconds(10))
        #expect(arm.delay == .seconds(1))  // the first display boundary, 9 s left
        #expect(machine.phase == .running)
        #expect(machine.remaining(at: t0 + .seconds(4)) == .seconds(6))
    }

    @Test func startWhileRunningAsksForNothing() throws {
        var machine = machine()
        try arm(machine.start(now: t0))
        guard case .none = machine.start(now: t0 + .seconds(1)) else {
            Issue.record("a running countdown re-armed")
            return
        }
    }

    @Test func pauseFreezesTheTimeLeftAndAsksToStopTheTimer() throws {
        var machine = machine()
        let arm = try arm(machine.start(now: t0))
        #expect(machine.wantedTimer.firstTick == arm.firstTick)
        guard case .stopTimer = machine.pause(now: t0 + .seconds(3)) else {
            Issue.record("pause asked for nothing")
            return
        }
        #expect(machine.wantedTimer.firstTick == nil)
        #expect(machine.wantedTimer.generation > arm.generation)
        #expect(machine.phase == .paused)
        #expect(machine.remaining(at: t0 + .seconds(9)) == .seconds(7))
        let resumed = try self.arm(machine.resume(now: t0 + .seconds(20)))
        #expect(resumed.deadline == t0 + .seconds(27))
    }

    @Test func cancellingARunAsksToStopTheTimerAndEveryEndOfARunIsANewGeneration() throws {
        var machine = machine()
        let arm = try arm(machine.start(now: t0))
        guard case .stopTimer = machine.cancel(now: t0 + .seconds(1)) else {
            Issue.record("cancel asked for nothing")
            return
        }
        #expect(machine.wantedTimer.generation > arm.generation)
        #expect(machine.wantedTimer.firstTick == nil)
    }

    /// A tick claimed before the timer was re-armed for a new run comes before the new run's first boundary (the
    /// timer never runs early): it is dropped rather than shown as the new run's full duration.
    @Test func aTickBeforeTheRunsFirstBoundaryIsOfAnOlderRun() throws {
        var machine = machine()
        let first = try arm(machine.start(now: t0))
        _ = machine.pause(now: t0 + .seconds(1))
        let second = try arm(machine.start(now: t0 + .seconds(2)))
        #expect(second.generation > first.generation)
        #expect(second.firstTick == t0 + .seconds(3))
        guard case .none = machine.boundaryReached(now: t0 + .milliseconds(2_500)) else {
            Issue.record("a tick of the paused run was delivered")
            return
        }
        guard case .tick(let left) = machine.boundaryReached(now: t0 + .seconds(3))
        else {
            Issue.record("the current run's tick was dropped")
            return
        }
        #expect(left == .seconds(8))
    }

    /// On a busy machine two ticks can be delivered within one period (the first one late): the second stands for
    /// the same boundary and is dropped, so a run's values strictly decrease; a new run reports from the top again.
    @Test func aLateTickThatRepeatsTheLastValueIsDropped() throws {
        var machine = machine()
        try arm(machine.start(now: t0))
        guard case .tick(.seconds(8)) = machine.boundaryReached(now: t0 + .seconds(2))
        else {
            Issue.record("expected the late tick of the 9 s boundary to show 8 s")
            return
        }
        guard case .none = machine.boundaryReached(now: t0 + .milliseconds(2_050)) else {
            Issue.record("the 8 s boundary was reported twice")
            return
        }
        guard case .tick(.seconds(7)) = machine.boundaryReached(now: t0 + .seconds(3))
        else {
            Issue.record("expected 7 s")
            return
        }
        _ = machine.pause(now: t0 + .seconds(3))
        try self.arm(machine.start(now: t0 + .seconds(4)))
        guard case .tick(.seconds(6)) = machine.boundaryReached(now: t0 + .seconds(5))
        else {
            Issue.record("a resumed run reports its own values")
            return
        }
    }

    @Test func theDeadlineTickFinishesOnceAndAsksForTheTimerToBeStopped() throws {
        var machine = machine(.seconds(2))
        let arm = try arm(machine.start(now: t0))
        guard case .tick(.seconds(1)) = machine.boundaryReached(now: t0 + .seconds(1))
        else {
            Issue.record("expected a tick with 1 s left")
            return
        }
        guard case .finish = machine.boundaryReached(now: t0 + .seconds(2))
        else {
            Issue.record("the deadline did not finish the run")
            return
        }
        #expect(machine.wantedTimer.firstTick == nil)
        #expect(machine.wantedTimer.generation > arm.generation)
        #expect(machine.phase == .finished)
        guard case .none = machine.boundaryReached(now: t0 + .seconds(2)) else {
            Issue.record("a second finish")
            return
        }
        guard case .none = machine.cancel(now: t0 + .seconds(3)) else {
            Issue.record("cancel changed a finished countdown")
            return
        }
    }

    @Test func aTickAFewNanosecondsEarlyShowsTheWholeBoundary() throws {
        var machine = machine()
        try arm(machine.start(now: t0))
        guard
            case .tick(let left) = machine.boundaryReached(now: t0 + .seconds(1) + .nanoseconds(5))
        else {
            Issue.record("expected a tick")
            return
        }
        #expect(left == .seconds(9))
    }

    @Test func addMovesARunningDeadlineAndRearms() throws {
        var machine = machine()
        let arm = try arm(machine.start(now: t0))
        guard case .rearm(let rearm) = try machine.add(.seconds(5), now: t0 + .seconds(2)) else {
            Issue.record("add did not re-arm")
            return
        }
        #expect(machine.wantedTimer.firstTick == rearm.firstTick)
        #expect(rearm.deadline == t0 + .seconds(15))
        #expect(rearm.generation > arm.generation)
    }

    @Test func addGrowsAPausedCountdownAndLeavesAFinishedOneAlone() throws {
        var machine = machine()
        _ = machine.cancel(now: t0)
        guard case .unchanged = try machine.add(.seconds(1), now: t0) else {
            Issue.record("a cancelled countdown grew")
            return
        }
        var paused = self.machine()
        try arm(paused.start(now: t0))
        _ = paused.pause(now: t0 + .seconds(4))
        guard case .grew = try paused.add(.seconds(3), now: t0 + .seconds(5)) else {
            Issue.record("a paused countdown did not grow")
            return
        }
        #expect(paused.remaining(at: t0 + .seconds(50)) == .seconds(9))
    }

    @Test func addBeyondTheMaximumThrowsAndChangesNothing() throws {
        var machine = machine(TempoError.maximumDuration - .seconds(1))
        #expect(throws: TempoError.self) { try machine.add(.seconds(2), now: t0) }
        #expect(machine.phase == .idle)
        #expect(machine.remaining(at: t0) == TempoError.maximumDuration - .seconds(1))
    }

    @Test func restoringAPassedDeadlineArmsAnImmediateTick() throws {
        var machine = machine()
        let arm = try arm(machine.restore(.running, remaining: .seconds(3), deadline: t0, now: t0))
        #expect(arm.delay == .zero)
        guard case .finish = machine.boundaryReached(now: t0) else {
            Issue.record("a restored passed deadline did not finish")
            return
        }
    }

    @Test func restoringAPausedSnapshotKeepsItsTimeLeft() throws {
        var machine = machine()
        guard case .none = machine.restore(.paused, remaining: .seconds(4), deadline: t0, now: t0) else {
            Issue.record("a paused restore armed a timer")
            return
        }
        #expect(machine.phase == .paused)
        #expect(machine.remaining(at: t0 + .seconds(100)) == .seconds(4))
    }

    @Test func theFirstTickIsDueAtTheFirstBoundaryAfterNow() throws {
        let delay = CountdownStateMachine.firstTickDelay(
            to: t0 + .milliseconds(2500), now: t0, period: .seconds(1))
        #expect(delay == .milliseconds(500))
        #expect(CountdownStateMachine.firstTickDelay(to: t0, now: t0 + .seconds(1), period: .seconds(1)) == .zero)
    }
}
