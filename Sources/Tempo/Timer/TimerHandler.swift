/// What runs on each tick: one value, accepted the same way by ``TempoTimer``, ``TimerRegistry`` and
/// ``SharedTicker``.
///
/// ```swift
/// try TempoTimer(.every(.seconds(1)), handler: .tick { tick in print(tick.index) }).start()
/// try TempoTimer(.every(.seconds(1)), handler: .timer { timer, tick in
///     if tick.index == 10 { timer.cancel() }
/// }).start()
/// ```
///
/// The common forms also have trailing-closure sugar: `TempoTimer(.every(.seconds(1))) { tick in ... }` and
/// `TempoTimer(.every(.seconds(1))) { timer, tick in ... }`.
///
/// | Form | Receives | Runs on |
/// | --- | --- | --- |
/// | ``TimerEventHandler/tick(_:)`` | the tick | the schedule's delivery |
/// | ``TimerEventHandler/timer(_:)`` | the timer that ticked and the tick (no retain cycle) | the schedule's delivery |
/// | ``TimerEventHandler/weak(_:_:)`` | the live target and the tick; the timer ends on the first tick after the target died | the schedule's delivery |
/// | ``TimerEventHandler/mainActor(_:)`` | the tick, on the main actor (checked by the compiler) | the main queue |
///
/// The forms are those of ``TimerEventHandler``, which TempoPlans' `PlanHandler` shares.
public typealias TimerHandler = TimerEventHandler<TempoTimer, TimerTick>

extension TimerEventHandler where Source == TempoTimer, Event == TimerTick {
    /// Calls `body` with each tick.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func tick(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerHandler {
        TimerHandler(body: .event(body))
    }

    /// The delivery to arm `schedule` with: the schedule's own, or the main queue for a main-actor handler.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidArgument`` when a main-actor handler meets a delivery
    ///   other than the default or the main queue.
    func delivery(for schedule: TimerSchedule) throws(TempoError) -> TimerDelivery {
        runsOnMainActor ? try schedule.delivery.forMainActor() : schedule.delivery
    }
}
