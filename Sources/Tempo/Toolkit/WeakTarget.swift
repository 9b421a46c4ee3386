/// A handler bound to a target it holds weakly: the one implementation behind every `.weak(target)` form
/// of the toolkit (``TimerHandler/weak(_:_:)``, taken by ``TempoTimer``, ``TimerRegistry`` and ``SharedTicker``, and TempoPlans'
/// `PlanHandler.weak(_:_:)`).
///
/// `handler` passes the live target on, and does nothing once it died; `isAlive` tells its owner when to drop
/// the binding.
package struct WeakTarget<Argument: Sendable>: Sendable {
    package let isAlive: @Sendable () -> Bool
    package let handler: @Sendable (Argument) -> Void

    package init<Target: AnyObject & Sendable>(
        _ target: Target, _ handler: @escaping @Sendable (Target, Argument) -> Void
    ) {
        isAlive = { [weak target] in target != nil }
        self.handler = { [weak target] argument in
            if let target { handler(target, argument) }
        }
    }
}

/// A main-actor handler as a `@Sendable` closure that runs it on the calling thread, asserting the main actor: the one
/// implementation behind ``TimerHandler/mainActor(_:)`` and TempoPlans' `PlanHandler.mainActor(_:)`. Only for a
/// delivery on the main queue (the handler values check it where they are used), where the main actor runs.
///
/// - Parameter body: The handler.
/// - Returns: The closure; calling it off the main actor traps in `MainActor.assumeIsolated`.
@inlinable
package func assumingMainActor<Argument: Sendable>(
    _ body: @escaping @MainActor (Argument) -> Void
) -> @Sendable (Argument) -> Void {
    { argument in MainActor.assumeIsolated { body(argument) } }
}
