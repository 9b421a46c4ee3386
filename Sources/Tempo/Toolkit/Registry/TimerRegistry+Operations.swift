extension TimerRegistry {
    /// Cancels and removes the timer under `key`.
    ///
    /// Once this returns, no handler run of that timer starts (a run another thread had already begun
    /// completes). Safe from the timer's own handler.
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether the key had a timer.
    @discardableResult
    public func cancel(_ key: Key) -> Bool {
        let removed = storage.removeValue(forKey: key)
        removed?.timer.cancel()
        return removed != nil
    }

    /// Cancels and removes every timer.
    ///
    /// Timers scheduled concurrently with this call, after it took the entries, stay.
    public func cancelAll() {
        storage.removeAll()
    }

    /// Whether `key` has a timer that has not ended, been cancelled, or lost its weak target.
    ///
    /// A one-shot or finite timer is still contained while its last tick waits for or runs its handler.
    ///
    /// - Parameter key: The key.
    /// - Returns: `true` while the key's timer is scheduled, paused, or delivering its last tick.
    public func contains(_ key: Key) -> Bool {
        prune()
        return storage[key] != nil
    }

    /// The keys that have a timer, in no particular order.
    public var keys: [Key] {
        prune()
        return Array(storage.entries.keys)
    }

    /// The number of timers in the registry.
    public var count: Int {
        prune()
        return storage.entries.count
    }

    /// Pauses the timer under `key`, keeping the time left to its next tick (see ``TempoTimer/pause()``).
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether the key had a timer.
    @discardableResult
    public func pause(_ key: Key) -> Bool {
        guard let timer = timer(for: key) else { return false }
        timer.pause()
        return true
    }

    /// Resumes the paused timer under `key`; its grid shifts by the time spent paused (see ``TempoTimer/resume()``).
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether the key had a timer.
    @discardableResult
    public func resume(_ key: Key) -> Bool {
        guard let timer = timer(for: key) else { return false }
        timer.resume()
        return true
    }

    /// The state of the timer under `key`, or `nil` when the key has none.
    ///
    /// A one-shot or finite timer reads ``TimerState/finished`` from the moment its last tick is handed to
    /// delivery until that tick's handler has returned; then it leaves the registry and this returns `nil`.
    ///
    /// - Parameter key: The key.
    /// - Returns: ``TimerState/running`` or ``TimerState/paused`` for a timer in the registry, or
    ///   ``TimerState/finished`` while its last tick is being delivered.
    public func state(of key: Key) -> TimerState? {
        timer(for: key)?.state
    }

    /// The time until the next tick of the timer under `key` (frozen while paused), or `nil` when the key has none.
    ///
    /// - Parameter key: The key.
    /// - Returns: The time left, never negative.
    public func timeUntilNextTick(of key: Key) -> Duration? {
        timer(for: key)?.timeUntilNextTick
    }

    private func timer(for key: Key) -> TempoTimer? {
        storage[key]?.timer
    }

    /// Removes entries whose weak target died or whose timer ended, and cancels their timers (see
    /// ``KeyedTimers/prune()``).
    private func prune() {
        storage.prune()
    }
}
