/// The bookkeeping of a ``Debouncer`` as a value: each event returns what its owner does to the one-shot timer
/// (or which value it runs) after releasing the lock.
///
/// Every event is legal in every state (calls, cancels and flushes race with the timer's tick by design); the
/// only checked rule is that delays reach the machine validated.
package struct DebouncerStateMachine<Value: Sendable> {
    package enum State {
        /// Nothing waits.
        case idle
        /// `value` runs once `deadline` (`delay` after the last call) has passed.
        case pending(value: Value, deadline: TimerInstant)
    }

    /// What ``call(_:now:)`` asks of the owner.
    package enum CallAction: Equatable {
        /// A zero delay: fire the timer manually, on the delivery's next turn (starting it first if cancelled).
        case fireOnNextTurn
        /// Restart the one-shot timer from now, with a new interval when the delay changed.
        case restartTimer(interval: Duration?)
    }

    package private(set) var state = State.idle
    /// The delay the next call starts.
    package private(set) var delay: Duration
    /// The one-shot timer's interval: the last non-zero delay a call started.
    private var timerDelay: Duration

    /// - Parameters:
    ///   - delay: The validated delay (zero or at least 1 ns).
    ///   - timerDelay: The interval the owner's timer was created with.
    package init(delay: Duration, timerDelay: Duration) {
        self.delay = delay
        self.timerDelay = timerDelay
    }

    package var isPending: Bool {
        guard case .pending = state else { return false }
        return true
    }

    /// Changes the delay for later calls; a pending value keeps its deadline.
    package mutating func setDelay(_ delay: Duration) {
        assert(delay >= .zero, "the owner validates delays")
        self.delay = delay
    }

    /// Records `value`, due `delay` after `now`.
    package mutating func call(_ value: Value, now: TimerInstant) -> CallAction {
        state = .pending(value: value, deadline: now + delay)
        guard delay != .zero else { return .fireOnNextTurn }
        guard delay != timerDelay else { return .restartTimer(interval: nil) }
        timerDelay = delay
        return .restartTimer(interval: delay)
    }

    /// The timer's tick came at `now`: the value to run, if one is pending and due (a call that came in
    /// meanwhile moved the deadline, and restarted the timer for it).
    package mutating func delayElapsed(now: TimerInstant) -> Value? {
        guard case .pending(let value, let deadline) = state, now >= deadline else { return nil }
        state = .idle
        return value
    }

    /// Takes the pending value whatever its deadline (``Debouncer/flush()`` and ``Debouncer/cancel()``).
    package mutating func take() -> Value? {
        guard case .pending(let value, _) = state else { return nil }
        state = .idle
        return value
    }
}
