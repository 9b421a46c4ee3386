/// How many ticks a timer delivers.
public enum TimerRepeats: Hashable, Sendable {
    /// One tick, then the timer finishes.
    case once
    /// `n` ticks (`n ≥ 1`, otherwise the timer's initializer throws), then the timer finishes.
    case times(Int)
    /// Ticks until cancelled.
    case forever

    /// The number of grid slots, or `nil` for ``forever``.
    var total: Int? {
        switch self {
        case .once: 1
        case .times(let n): n
        case .forever: nil
        }
    }
}
