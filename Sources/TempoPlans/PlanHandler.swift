import Tempo

/// What runs on each fire of a plan: one value, accepted the same way by ``PlanTimer`` and ``PlanRegistry``, with the
/// four forms of Tempo's `TimerHandler` under the same names.
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
/// | ``fire(_:)`` | the fire | the delivery |
/// | ``timer(_:)`` | the plan timer that fired and the fire (no retain cycle) | the delivery |
/// | ``weak(_:_:)`` | the live target and the fire; the plan timer is cancelled on the first fire after the target died | the delivery |
/// | ``mainActor(_:)`` | the fire, on the main actor (checked by the compiler) | the main queue |
///
/// It is a type of its own rather than Tempo's `TimerHandler` because a plan's handler receives a ``PlanFire`` (a
/// planned `Date`, and a missed count that may be a lower bound) and its timer is a ``PlanTimer``, not a tick of a
/// `TempoTimer` on a grid. The two are not one generic type on purpose: a generic handler keeps its closure at the
/// generic abstraction, and turning it back into a `TempoTimer`'s concrete handler cost two thunk allocations and 96
/// more bytes per armed timer (`tempo bench --counts 100k --subjects tempo-timer dispatch-source`: 340 B against 244 B).
///
/// `PlanHandler` is a value type and is `Sendable`.
public struct PlanHandler: Sendable {
    enum Body: Sendable {
        case fire(@Sendable (PlanFire) -> Void)
        case timer(@Sendable (PlanTimer, PlanFire) -> Void)
    }

    let body: Body
    /// For ``weak(_:_:)``: whether the target is still alive.
    package let targetIsAlive: (@Sendable () -> Bool)?
    /// For ``mainActor(_:)``: the handler must run on the main queue.
    let runsOnMainActor: Bool

    /// Calls `body` with each fire.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func fire(_ body: @escaping @Sendable (PlanFire) -> Void) -> PlanHandler {
        PlanHandler(body: .fire(body), targetIsAlive: nil, runsOnMainActor: false)
    }

    /// Calls `body` with the plan timer that fired and the fire, so it can cancel or restart the timer.
    ///
    /// The plan timer is passed at call time, not captured, so the handler creates no retain cycle. In a
    /// ``PlanRegistry`` it is the key's current plan timer.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func timer(_ body: @escaping @Sendable (PlanTimer, PlanFire) -> Void) -> PlanHandler {
        PlanHandler(body: .timer(body), targetIsAlive: nil, runsOnMainActor: false)
    }

    /// Holds `target` weakly and passes it to `body` on each fire; once the target has been deallocated the plan
    /// timer is cancelled on its next fire instead of calling `body` (and a ``PlanRegistry`` entry leaves the
    /// registry at once).
    ///
    /// - Parameters:
    ///   - target: The object handed to `body`, never kept alive by the plan timer.
    ///   - body: Called with the live target and the fire.
    /// - Returns: The handler value.
    public static func weak<Target: AnyObject & Sendable>(
        _ target: Target, _ body: @escaping @Sendable (Target, PlanFire) -> Void
    ) -> PlanHandler {
        let bound = WeakTarget(target, body)
        return PlanHandler(body: .fire(bound.handler), targetIsAlive: bound.isAlive, runsOnMainActor: false)
    }

    /// Calls `body` on the main actor: it may touch main-actor state directly, checked by the compiler.
    ///
    /// Fires run on the main queue (the main actor's executor), so they run late while the main thread is busy, and
    /// the plan's next date is computed there too. The delivery must be the default (`TimerDelivery.privateQueue`,
    /// which is then replaced by the main queue) or `.queue(.main)`; any other delivery is rejected with
    /// ``PlanError/Code/invalidArgument`` where the handler is used.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func mainActor(_ body: @escaping @MainActor (PlanFire) -> Void) -> PlanHandler {
        PlanHandler(body: .fire(assumingMainActor(body)), targetIsAlive: nil, runsOnMainActor: true)
    }
}

extension PlanHandler {
    /// The delivery to run this handler with: `delivery`, or the main queue for a main-actor handler.
    ///
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidArgument`` when a main-actor handler meets a delivery
    ///   other than the default or the main queue.
    func delivery(for delivery: TimerDelivery) throws(PlanError) -> TimerDelivery {
        guard runsOnMainActor else { return delivery }
        do {
            return try delivery.forMainActor()
        } catch {
            throw PlanError(error)
        }
    }
}

extension PlanHandler: KeyedHandler {
    /// Runs the body with `fire`, passing `timer` to a ``timer(_:)`` body.
    package func run(_ timer: PlanTimer, _ fire: PlanFire) {
        switch body {
        case .fire(let body): body(fire)
        case .timer(let body): body(timer, fire)
        }
    }
}
