public import Foundation

/// One fire of a running plan: which planned date it serves, how late it is, and how many planned dates were
/// missed before it.
///
/// `PlanFire` is a value type and is `Sendable`.
public struct PlanFire: Hashable, Sendable, CustomStringConvertible {
    /// The planned date this fire serves. Under `LateTickPolicy.coalesce` it is the most recent due date.
    public let planned: Date
    /// How long after ``planned`` (on the wall clock) the fire was handed over. Never negative.
    public let lateness: Duration
    /// How many planned dates were folded into this fire (`LateTickPolicy.coalesce`) or dropped before
    /// it (`LateTickPolicy.skip`, or the oldest of a burst larger than ``PlanTimer/maximumBurst``).
    ///
    /// Missed dates are counted one by one up to 1,024 (each is a next-date computation); when more were missed
    /// (a wall clock set years ahead under a frequent calendar plan), `missed` reads 1,024 and
    /// ``missedIsLowerBound`` is `true`: at least that many. Fixed dates and interval plans are counted exactly.
    public let missed: Int
    /// Whether more dates were missed than ``missed`` says: it is a lower bound ("at least").
    public let missedIsLowerBound: Bool
    /// The fire's number since the plan started running: the first fire is 1.
    public let index: Int

    /// Creates a fire (for tests of code that consumes fires).
    ///
    /// - Parameters:
    ///   - planned: The planned date served.
    ///   - lateness: How late the fire was handed over.
    ///   - missed: Planned dates folded into or dropped before this one.
    ///   - index: The fire's number, from 1.
    ///   - missedIsLowerBound: Whether `missed` is a lower bound (default `false`).
    public init(planned: Date, lateness: Duration, missed: Int, index: Int, missedIsLowerBound: Bool = false) {
        self.planned = planned
        self.lateness = lateness
        self.missed = missed
        self.index = index
        self.missedIsLowerBound = missedIsLowerBound
    }

    /// For example `fire 3 for 2026-03-30 07:00:00 +0000, 0.0 seconds late, 0 missed` (`at least 1024 missed` for
    /// a lower bound).
    public var description: String {
        "fire \(index) for \(planned), \(lateness) late, \(missedIsLowerBound ? "at least " : "")\(missed) missed"
    }
}
