import TempoLocks

extension TempoTimer {
    /// Adds a handler, called after the existing ones for every later tick.
    ///
    /// - Parameter handler: The handler.
    /// - Returns: A token for ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ handler: @escaping @Sendable (TimerTick) -> Void) -> TimerObservation {
        TimerObservation(id: machine.withLock { $0.addObserver(handler) })
    }

    /// Removes a handler added with ``addObserver(_:)``. A run already under way still calls it.
    ///
    /// - Parameter observation: The token ``addObserver(_:)`` returned.
    /// - Returns: Whether the handler was registered.
    @discardableResult
    public func removeObserver(_ observation: TimerObservation) -> Bool {
        let removed = machine.withLock { $0.removeObserver(id: observation.id) }
        // The closure, if this call holds it, is released here, outside the lock.
        return removed.found
    }

    /// Sets (or, with `nil`, removes) the closure called with each new ``TimerState``.
    ///
    /// State changes are delivered through the same serial mailbox as ticks, in order with them.
    ///
    /// - Parameter handler: The closure.
    public func onStateChange(_ handler: (@Sendable (TimerState) -> Void)?) {
        let old = machine.withLock { $0.setStateHandler(handler) }
        withExtendedLifetime(old) {}
    }

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

/// A token for a handler added with ``TempoTimer/addObserver(_:)``.
public struct TimerObservation: Hashable, Sendable {
    let id: UInt64
}
