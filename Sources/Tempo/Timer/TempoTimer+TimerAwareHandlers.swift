extension TempoTimer {
    /// A closure called for each tick with the timer that ticked, so it can reset, pause or cancel it.
    ///
    /// The timer is passed at call time, not captured, so a handler that uses it creates no retain cycle.
    public typealias TimerAwareHandler = @Sendable (TempoTimer, TimerTick) -> Void

    /// Adds a handler that receives the timer on each tick, after the existing handlers.
    ///
    /// The timer is held weakly by the handler and strongly only while a tick is delivered, so a handler that
    /// resets or cancels its own timer creates no retain cycle.
    ///
    /// - Parameter handler: Called with the timer and the tick.
    /// - Returns: A token for ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ handler: @escaping TimerAwareHandler) -> TimerObservation {
        // While a tick is delivered the drain holds the timer, so the weak reference is always alive there.
        addObserver { [weak self] tick in
            if let self { handler(self, tick) }
        }
    }
}
