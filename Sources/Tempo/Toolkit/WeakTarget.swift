/// A handler bound to a target it holds weakly: the one implementation behind every `target:` and `owner:` form
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
