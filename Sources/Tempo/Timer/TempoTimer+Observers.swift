extension TempoTimer {
    /// Removes every handler, the one given at creation included, and optionally cancels the timer.
    ///
    /// A run already under way still calls the handlers it started with; later ticks call none. Without
    /// `thenCancel` the timer keeps its schedule (ticks still count in ``fireCount``), ready for
    /// handlers added later with `addObserver(_:)`.
    ///
    /// - Parameter thenCancel: Whether to ``cancel()`` the timer as well (Repeat's `removeAllObservers(thenStop:)`):
    ///   a timer with no handlers has nothing to resume for, and cancelling releases the scheduler's reference.
    /// - Returns: The number of handlers removed.
    @discardableResult
    public func removeAllObservers(thenCancel: Bool = false) -> Int {
        let removed = withMachine { $0.removeAllObservers() }
        if thenCancel { cancel() }
        // The closures may hold the last references to user objects: release them outside the lock.
        return removed.count
    }

    /// Runs the handlers now through the timer's delivery, then pauses it (with `andPause`), in one call.
    ///
    /// The manual tick is queued before the pause, so it still runs (a pause never drops a queued tick); the
    /// schedule keeps the time left to its next tick for ``resume()``. Without `andPause` this is ``fire()``.
    ///
    /// - Parameter andPause: Whether to pause the timer after queueing the manual tick.
    /// - Returns: Whether a run was queued (`false` for a cancelled timer, which is then left as it is).
    @discardableResult
    public func fire(andPause: Bool) -> Bool {
        guard fire() else { return false }
        if andPause { pause() }
        return true
    }
}
