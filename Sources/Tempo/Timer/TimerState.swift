/// The lifecycle state of a ``TempoTimer``.
///
/// An enum, closed: the states of a timer's lifecycle, which code switches over exhaustively; a new state would change
/// what the others mean, a breaking change however it is spelled.
public enum TimerState: Hashable, Sendable, CustomStringConvertible {
    /// Created and never started.
    case idle
    /// Started; a deadline is armed.
    case running
    /// Paused; the time left to the next tick is kept for ``TempoTimer/resume()``.
    case paused
    /// Every scheduled tick of a finite timer has been handed to delivery.
    case finished
    /// Cancelled; nothing is delivered until the timer is started again.
    case cancelled

    /// `idle`, `running`, `paused`, `finished` or `cancelled`.
    public var description: String {
        switch self {
        case .idle: "idle"
        case .running: "running"
        case .paused: "paused"
        case .finished: "finished"
        case .cancelled: "cancelled"
        }
    }
}
