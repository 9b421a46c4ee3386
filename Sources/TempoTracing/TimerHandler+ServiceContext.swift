import Instrumentation
public import Tempo

extension TimerHandler {
    /// A tick handler that runs `body` inside the `ServiceContext` that was current where the handler was made (where
    /// the timer is created and armed), so that traces, baggage and loggers that read the context follow the timer
    /// onto Tempo's threads.
    ///
    /// ```swift
    /// let timer = try TempoTimer(.every(.seconds(5)), handler: .inCurrentServiceContext { tick in
    ///     poll()  // ServiceContext.current is the context of the request that started the poller
    /// }).start()
    /// ```
    ///
    /// The context is captured once, when this is called; `nil` when no context was current (the handler then runs
    /// with none). Timing and thread are the timer's: only the task-local context is set around `body`.
    ///
    /// - Parameter body: Called for each tick.
    /// - Returns: The handler.
    public static func inCurrentServiceContext(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerHandler {
        .tick(ServiceContext.boundToCurrent(body))
    }
}
