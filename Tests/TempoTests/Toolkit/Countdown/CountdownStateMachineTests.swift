import Tempo
import Testing

/// The countdown's lifecycle as a value: events in, actions out, no clock and no timer running.
@Suite struct CountdownStateMachineTests {
    private let t0 = TimerInstant(offset: .seconds(100))

    private func machine(_ duration: Duration = .seconds(10)) -> CountdownStateMachine {
        CountdownStateMachine(duration: duration, period: .seconds(1))
    }

    private func idleTimer() throws -> TempoTimer {
        try TempoTimer(.every(.seconds(1)))
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

    @Test func pauseFreezesTheTimeLeftAndHandsBackTheTimerToCancel() throws {
        var machine = machine()
        let arm = try arm(machine.start(now: t0))
        let timer = try idleTimer()
        let result1 = machine.timerStarted(timer, generation: arm.generation)
        #expect(result1 == .keep)
        guard case .cancelTimer(let cancelled) = machine.pause(now: t0 + .seconds(3)) else {
            Issue.record("pause asked for nothing")
            return
        }
        #expect(cancelled === timer)
        #expect(machine.phase == .paused)
        #expect(machine.remaining(at: t0 + .seconds(9)) == .seconds(7))
        let resumed = try self.arm(machine.resume(now: t0 + .seconds(20)))
        #expect(resumed.deadline == t0 + .seconds(27))
    }

    @Test func aTimerOfARunThatEndedBeforeItWasHandedBackIsCancelled() throws {
        var machine = machine()
        let arm = try arm(machine.start(now: t0))
        _ = machine.cancel(now: t0 + .seconds(1))
        let result2 = machine.timerStarted(try idleTimer(), generation: arm.generation)
        #expect(result2 == .cancel)
        #expect(machine.timer == nil)
    }

    @Test func ticksOfAnOlderRunAreStale() throws {
        var machine = machine()
        let first = try arm(machine.start(now: t0))
        _ = machine.pause(now: t0 + .seconds(1))
        let second = try arm(machine.start(now: t0 + .seconds(2)))
        #expect(second.generation > first.generation)
        guard case .none = machine.boundaryReached(generation: first.generation, now: t0 + .seconds(3)) else {
            Issue.record("a tick of the paused run was delivered")
            return
        }
        guard case .tick(let left) = machine.boundaryReached(generation: second.generation, now: t0 + .seconds(3))
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
        let arm = try arm(machine.start(now: t0))
        guard case .tick(.seconds(8)) = machine.boundaryReached(generation: arm.generation, now: t0 + .seconds(2))
        else {
            Issue.record("expected the late tick of the 9 s boundary to show 8 s")
            return
        }
        guard case .none = machine.boundaryReached(generation: arm.generation, now: t0 + .milliseconds(2_050)) else {
            Issue.record("the 8 s boundary was reported twice")
            return
        }
        guard case .tick(.seconds(7)) = machine.boundaryReached(generation: arm.generation, now: t0 + .seconds(3))
        else {
            Issue.record("expected 7 s")
            return
        }
        _ = machine.pause(now: t0 + .seconds(3))
        let resumed = try self.arm(machine.start(now: t0 + .seconds(4)))
        guard case .tick(.seconds(6)) = machine.boundaryReached(generation: resumed.generation, now: t0 + .seconds(5))
        else {
            Issue.record("a resumed run reports its own values")
            return
        }
    }

    @Test func theDeadlineTickFinishesOnceAndAskForTheTimerToBeCancelled() throws {
        var machine = machine(.seconds(2))
        let arm = try arm(machine.start(now: t0))
        let timer = try idleTimer()
        _ = machine.timerStarted(timer, generation: arm.generation)
        guard case .tick(.seconds(1)) = machine.boundaryReached(generation: arm.generation, now: t0 + .seconds(1))
        else {
            Issue.record("expected a tick with 1 s left")
            return
        }
        guard case .finish(let cancelled) = machine.boundaryReached(generation: arm.generation, now: t0 + .seconds(2))
        else {
            Issue.record("the deadline did not finish the run")
            return
        }
        #expect(cancelled === timer)
        #expect(machine.phase == .finished)
        guard case .none = machine.boundaryReached(generation: arm.generation, now: t0 + .seconds(2)) else {
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
        let arm = try arm(machine.start(now: t0))
        guard
            case .tick(let left) = machine.boundaryReached(
                generation: arm.generation, now: t0 + .seconds(1) + .nanoseconds(5))
        else {
            Issue.record("expected a tick")
            return
        }
        #expect(left == .seconds(9))
    }

    @Test func addMovesARunningDeadlineAndRearms() throws {
        var machine = machine()
        let arm = try arm(machine.start(now: t0))
        let timer = try idleTimer()
        _ = machine.timerStarted(timer, generation: arm.generation)
        guard case .rearm(let rearm, let old) = try machine.add(.seconds(5), now: t0 + .seconds(2)) else {
            Issue.record("add did not re-arm")
            return
        }
        #expect(old === timer)
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
        guard case .finish = machine.boundaryReached(generation: arm.generation, now: t0) else {
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

    #if DEBUG
    @Test func aTimerHandedBackForARunFromTheFutureFailsLoudlyInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            var machine = CountdownStateMachine(duration: .seconds(1), period: .seconds(1))
            _ = machine.timerStarted(try! TempoTimer(.every(.seconds(1))), generation: 7)
        }
    }
    #endif
}
