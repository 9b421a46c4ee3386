import Instrumentation
public import TempoPlans

extension PlanHandler {
    /// A fire handler that runs `body` inside the `ServiceContext` that was current where the handler was made (where
    /// the plan timer or registry entry is created), so that traces, baggage and loggers that read the context follow
    /// the plan onto Tempo's threads: the plans' counterpart of `TimerHandler.inCurrentServiceContext(_:)`.
    ///
    /// ```swift
    /// let report = try PlanTimer(plan, handler: .inCurrentServiceContext { fire in
    ///     sendReport(for: fire.planned)  // ServiceContext.current is the context where the timer was made
    /// })
    /// ```
    ///
    /// The context is captured once, when this is called; `nil` when no context was current (the handler then runs
    /// with none). Timing and thread are the plan timer's: only the task-local context is set around `body`.
    ///
    /// - Parameter body: Called for each fire.
    /// - Returns: The handler, for `PlanTimer` or `PlanRegistry`.
    public static func inCurrentServiceContext(_ body: @escaping @Sendable (PlanFire) -> Void) -> PlanHandler {
        .fire(ServiceContext.boundToCurrent(body))
    }
}

extension ServiceContext {
    /// `body`, run inside the context current now: the one binding behind `TimerHandler` and `PlanHandler`'s
    /// `inCurrentServiceContext(_:)`.
    static func boundToCurrent<Event>(_ body: @escaping @Sendable (Event) -> Void) -> @Sendable (Event) -> Void {
        let context = ServiceContext.current
        return { event in ServiceContext.withValue(context) { body(event) } }
    }
}
