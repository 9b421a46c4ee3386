/// When a timer's first tick is due, relative to ``TempoTimer/start()``.
///
/// A struct with static members rather than an enum, so that a later version can add a form: compare with `==`.
/// `FirstTick` is a value type and is `Sendable`.
public struct FirstTick: Hashable, Sendable, CustomStringConvertible {
    /// The forms, for Tempo's own exhaustive switches.
    package enum Kind: Hashable, Sendable {
        case afterInterval
        case after(Duration)
        case at(TimerDeadline)
    }

    /// Which form this is, with its value.
    package let kind: Kind

    package init(kind: Kind) {
        self.kind = kind
    }

    /// One interval after start (the default).
    public static let afterInterval = FirstTick(kind: .afterInterval)

    /// This long after start; zero fires at once. The one rule for delays, shared with
    /// ``TimerSchedule/after(_:leeway:delivery:clock:)`` and ``TempoTimer/reschedule(after:)``: from zero to about
    /// 292 years (`Int64.max` nanoseconds; otherwise creating the timer throws ``TempoError`` with
    /// ``TempoError/Code/invalidInterval``).
    ///
    /// - Parameter delay: The time from start to the first tick.
    /// - Returns: The first-tick option.
    public static func after(_ delay: Duration) -> FirstTick {
        FirstTick(kind: .after(delay))
    }

    /// At this deadline, which must be on the timer's clock (otherwise creating the timer throws ``TempoError`` with
    /// ``TempoError/Code/clockMismatch``). A deadline already past when the timer starts is treated like any late
    /// tick: the grid stays anchored at the deadline and the ``LateTickPolicy`` decides what runs.
    ///
    /// - Parameter deadline: When the first tick is due.
    /// - Returns: The first-tick option.
    public static func at(_ deadline: TimerDeadline) -> FirstTick {
        FirstTick(kind: .at(deadline))
    }

    /// `afterInterval`, `after(<delay>)` or `at(<deadline>)`.
    public var description: String {
        switch kind {
        case .afterInterval: "afterInterval"
        case .after(let delay): "after(\(delay))"
        case .at(let deadline): "at(\(deadline))"
        }
    }
}
