/// The windows of a ``Throttler`` as a value: each event returns what its owner does to the one-shot timer (or
/// which value it runs) after releasing the lock.
///
/// A leading run is handed to the timer's manual tick, which runs it on the delivery; the window's end is the
/// timer's scheduled tick. Every event is legal in every state: a tick claimed before ``cancel()`` cancelled the
/// timer may still arrive, and finds nothing to run.
package struct ThrottlerStateMachine<Value: Sendable> {
    package enum State {
        /// No window is open; `leading` is a leading run whose manual tick has not started yet (it outlives
        /// its window only when the window ended first).
        case closed(leading: Value?)
        /// A window is open until the timer's tick; `trailing` runs then.
        case open(leading: Value?, trailing: Value?)
    }

    /// What ``call(_:)`` asks of the owner, beside the outcome it reports.
    package enum CallAction: Equatable {
        case none
        /// Start the window's timer.
        case startTimer
        /// Start the window's timer and fire it manually, which runs the leading value on the delivery.
        case startTimerAndFire
    }

    /// What ``windowEnded()`` asks of the owner.
    package enum WindowEndAction {
        /// The window closed; nothing runs.
        case none
        /// Restart the timer (the run opens the next window), then run `value`.
        case runTrailing(Value)
    }

    package private(set) var state = State.closed(leading: nil)
    package let edge: Throttler<Value>.Edge

    package init(edge: Throttler<Value>.Edge) {
        self.edge = edge
    }

    package var isWindowOpen: Bool {
        guard case .open = state else { return false }
        return true
    }

    /// Offers `value`; see ``Throttler`` for which calls run when.
    package mutating func call(_ value: Value) -> (outcome: Throttler<Value>.Outcome, action: CallAction) {
        switch state {
        case .open(let leading, _):
            guard edge != .leading else { return (.dropped, .none) }
            state = .open(leading: leading, trailing: value)
            // A trailing throttler's timer may have just ticked for this window (its handler not yet run):
            // starting it again is harmless, the window's end finds the value either way.
            return (.deferred, edge == .trailing ? .startTimer : .none)
        case .closed(let leading):
            guard edge != .trailing else {
                state = .open(leading: leading, trailing: value)
                return (.deferred, .startTimer)
            }
            state = .open(leading: value, trailing: nil)
            return (.ranNow, .startTimerAndFire)
        }
    }

    /// The timer's manual tick runs: the leading value, if it was not cancelled.
    package mutating func leadingRunStarted() -> Value? {
        switch state {
        case .closed(let leading):
            state = .closed(leading: nil)
            return leading
        case .open(let leading, let trailing):
            state = .open(leading: nil, trailing: trailing)
            return leading
        }
    }

    /// The timer's scheduled tick: the window ends, and its trailing value (if any) runs and opens the next one.
    package mutating func windowEnded() -> WindowEndAction {
        guard case .open(let leading, let trailing) = state else {
            // A tick of a window that `cancel()` closed, claimed before the timer was cancelled.
            return .none
        }
        guard let trailing else {
            state = .closed(leading: leading)
            return .none
        }
        state = .open(leading: leading, trailing: nil)
        return .runTrailing(trailing)
    }

    /// Closes the window and drops the waiting values; returns whether one was waiting.
    package mutating func cancel() -> Bool {
        defer { state = .closed(leading: nil) }
        switch state {
        case .closed(let leading): return leading != nil
        case .open(let leading, let trailing): return leading != nil || trailing != nil
        }
    }
}
