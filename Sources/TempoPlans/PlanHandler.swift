public import Tempo

/// What runs on each fire of a plan: one value, accepted the same way by ``PlanTimer`` and ``PlanRegistry``, in the
/// four forms of Tempo's `TimerHandler` (they share `TimerEventHandler`), receiving a ``PlanFire``.
///
/// ```swift
/// let plan = try Plan.cron("0 9 * * MON-FRI", in: .gmt)
/// let report = try PlanTimer(plan, handler: .timer { timer, fire in
///     if fire.index == 5 { timer.cancel() }
/// }).start()
/// report.cancel()
/// ```
///
/// | Form | Receives | Runs on |
/// | --- | --- | --- |
/// | `.fire` | the fire | the delivery |
/// | `.timer` | the plan timer that fired and the fire (no retain cycle) | the delivery |
/// | `.weak` | the live target and the fire; the plan timer is cancelled on the first fire after the target died | the delivery |
/// | `.mainActor` | the fire, on the main actor (checked by the compiler) | the main queue |
public typealias PlanHandler = TimerEventHandler<PlanTimer, PlanFire>

extension TimerEventHandler where Source == PlanTimer, Event == PlanFire {
    /// Calls `body` with each fire.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func fire(_ body: @escaping @Sendable (PlanFire) -> Void) -> PlanHandler {
        PlanHandler(body: .event(body))
    }

    /// The delivery to run this handler with: `delivery`, or the main queue for a main-actor handler.
    ///
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidArgument`` when a main-actor handler meets a delivery
    ///   other than the default or the main queue.
    func delivery(for delivery: TimerDelivery) throws(PlanError) -> TimerDelivery {
        guard runsOnMainActor else { return delivery }
        do {
            return try delivery.forMainActor()
        } catch {
            throw PlanError(.invalidArgument, text: error.value, message: error.message)
        }
    }
}
