/// How many ticks a timer delivers.
///
/// A struct with static members rather than an enum, so that a later version can add a form: compare with `==`.
/// `TimerRepeats` is a value type and is `Sendable`.
public struct TimerRepeats: Hashable, Sendable, CustomStringConvertible {
    /// The forms, for Tempo's own exhaustive switches.
    package enum Kind: Hashable, Sendable {
        case once
        case times(Int)
        case forever
    }

    /// Which form this is, with its count.
    package let kind: Kind

    package init(kind: Kind) {
        self.kind = kind
    }

    /// One tick, then the timer finishes.
    public static let once = TimerRepeats(kind: .once)

    /// `n` ticks, then the timer finishes.
    ///
    /// - Parameter n: The number of ticks, at least 1 (otherwise creating the timer throws ``TempoError`` with
    ///   ``TempoError/Code/invalidCount``).
    /// - Returns: The repeat option.
    public static func times(_ n: Int) -> TimerRepeats {
        TimerRepeats(kind: .times(n))
    }

    /// Ticks until cancelled.
    public static let forever = TimerRepeats(kind: .forever)

    /// The number of grid slots, or `nil` for ``forever``.
    var total: Int? {
        switch kind {
        case .once: 1
        case .times(let n): n
        case .forever: nil
        }
    }

    /// `once`, `times(<n>)` or `forever`.
    public var description: String {
        switch kind {
        case .once: "once"
        case .times(let n): "times(\(n))"
        case .forever: "forever"
        }
    }
}
