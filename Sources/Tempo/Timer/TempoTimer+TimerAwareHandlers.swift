extension TempoTimer {
    /// Adds a handler that receives the timer on each tick, after the existing handlers: how a
    /// ``TimerHandler/timer(_:)`` handler is installed (users pass that handler value where the timer is created).
    ///
    /// The timer is held weakly by the handler and strongly only while a tick is delivered, so a handler that
    /// resets or cancels its own timer creates no retain cycle.
    ///
    /// - Parameter handler: Called with the timer and the tick.
    /// - Returns: A token for ``removeObserver(_:)``.
    @discardableResult
    package func addObserver(_ handler: @escaping @Sendable (TempoTimer, TimerTick) -> Void) -> TimerObservation {
        // While a tick is delivered the drain holds the timer, so the weak reference is always alive there.
        addObserver { [weak self] tick in
            if let self { handler(self, tick) }
        }
    }
}
