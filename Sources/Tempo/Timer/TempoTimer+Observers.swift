extension TempoTimer {
    /// Removes every handler, the one given at creation included.
    ///
    /// A run already under way still calls the handlers it started with; later ticks call none. The timer keeps its
    /// schedule (ticks still count in ``fireCount``), ready for handlers added later with ``addObserver(_:)``; call
    /// ``cancel()`` as well to stop it (Repeat's `removeAllObservers(thenStop: true)`).
    ///
    /// - Returns: The number of handlers removed.
    @discardableResult
    public func removeAllObservers() -> Int {
        let removed = withMachine { $0.removeAllObservers() }
        // The closures may hold the last references to user objects: release them outside the lock.
        return removed.count
    }
}
