import Clocks
import Tempo
import TempoTesting
import Testing

/// Compiles only while every public type of Tempo and TempoTesting is `Sendable` (issue #5's audit).
/// `AsyncTickSequence.Iterator` is the one public type that is explicitly not `Sendable`.
@Suite struct SendableAuditTests {
    private func sendable<T: Sendable>(_ type: T.Type) -> String { "\(type)" }

    @Test func everyPublicTypeIsSendable() {
        let names = [
            sendable(TempoTimer.self), sendable(TimerSchedule.self), sendable(TimerHandler.self),
            sendable(TimerDeadline.self), sendable(TimerObservation.self),
            sendable(TimerTick.self), sendable(TimerState.self), sendable(LateTickPolicy.self),
            sendable(TimerRepeats.self), sendable(FirstTick.self), sendable(TimerDelivery.self),
            sendable(TimerClock.self), sendable(TimerInstant.self), sendable((any TimerScheduler).self),
            sendable(ScheduledAction.self), sendable(SystemScheduler.self), sendable(TempoError.self),
            sendable(TempoError.Code.self), sendable(DurationParser.self), sendable(VirtualClock.self),
            sendable(TempoClock.self), sendable(AsyncTick<TimerInstant>.self),
            sendable(AsyncTickSequence<ContinuousClock>.self), sendable(AsyncTickSequence<TestClock<Duration>>.self),
        ]
        #expect(names.count == 24)
    }
}
