import Testing

@testable import Tempo

/// The state machine's check of ``SystemScheduler`` callbacks, which carry the id of the action that came due.
@Suite struct TimerArmIdentityTests {
    private static func instant(seconds: Int) -> TimerInstant {
        TimerInstant(offset: .seconds(seconds))
    }

    /// A machine running with its first arm (due at 1 s) recorded as the action `id`.
    private static func armedMachine(id: UInt64) throws -> TimerStateMachine {
        let configuration = TempoTimer.Configuration(interval: .seconds(1), repeats: .times(3))
        var machine = TimerStateMachine(config: configuration, label: nil, handler: { _ in })
        let started = machine.start(now: instant(seconds: 0))
        guard case .arm(let arm) = started.scheduler else {
            Issue.record("start did not arm: \(started.scheduler)")
            throw CancellationError()
        }
        #expect(arm.deadline == instant(seconds: 1))
        let recorded = machine.armed(ScheduledAction(id: id, slot: 0), generation: arm.generation)
        #expect(recorded)
        return machine
    }

    @Test func onlyTheRecordedActionDeliversItsTick() throws {
        var machine = try Self.armedMachine(id: 8)
        let stale = machine.deadlineReached(actionID: 4, now: Self.instant(seconds: 1))
        #expect(!stale.startDrain)
        guard case .none = stale.scheduler else {
            Issue.record("a stale callback changed the arm: \(stale.scheduler)")
            return
        }
        let current = machine.deadlineReached(actionID: 8, now: Self.instant(seconds: 1))
        #expect(current.startDrain)
        // The arm is used up: the same id again delivers nothing.
        let again = machine.deadlineReached(actionID: 8, now: Self.instant(seconds: 1))
        #expect(!again.startDrain)
    }

    @Test func aCallbackAfterCancelDeliversNothing() throws {
        var machine = try Self.armedMachine(id: 8)
        let cancelled = machine.cancel()
        guard case .disarm(let action) = cancelled.scheduler else {
            Issue.record("cancel did not disarm: \(cancelled.scheduler)")
            return
        }
        #expect(action.id == 8)
        let late = machine.deadlineReached(actionID: 8, now: Self.instant(seconds: 1))
        #expect(!late.startDrain)
        #expect(machine.state == .cancelled)
    }
}
