extension AsyncTickSequence {
    /// Starts a task on the main actor that calls `handler` with each tick, for UI code.
    ///
    /// The loop and the handler both run on the main actor, checked by the compiler: there is no hop
    /// between receiving a tick and handling it, and the handler may touch main-actor state directly.
    /// Timing, late ticks and the grid are those of the sequence: a handler that takes longer than an
    /// interval gets the next tick coalesced by default, never a burst.
    ///
    /// ```swift
    /// @MainActor final class CountdownModel {
    ///     var remaining = 10
    ///     var task: Task<Void, Never>?
    ///     func start() throws {
    ///         let ticks = try AsyncTickSequence(every: .seconds(1), repeats: .times(10), clock: ContinuousClock())
    ///         task = ticks.startOnMainActor { [weak self] tick in self?.remaining = 10 - tick.index }
    ///     }
    ///     deinit { task?.cancel() }
    /// }
    /// ```
    ///
    /// - **Cancellation**: cancel the returned task; the pending deadline is released at once and the
    ///   handler is not called again. The task retains `handler` until it ends, so capture owners weakly.
    ///
    /// - Parameter handler: Called on the main actor with each tick.
    /// - Returns: The task running the loop; it ends when a finite sequence is done or it is cancelled.
    @discardableResult
    public func startOnMainActor(_ handler: @escaping @MainActor (Element) -> Void) -> Task<Void, Never> {
        Task { @MainActor in
            for await tick in self {
                handler(tick)
            }
        }
    }
}
