public import Foundation

extension Plan {
    /// The next `count` dates strictly after `date`, in order (fewer when the plan ends).
    ///
    /// Each date is strictly later than the one before, and the first strictly later than `date`, so feeding the
    /// last date back in never returns it again. A `Date` holds about 0.24 µs of precision (a `Double` of seconds),
    /// a plan whole nanoseconds: dates of a sub-microsecond interval plan that one `Date` cannot tell apart are
    /// returned once, as the first of them. A date whose search takes more than 20,000 steps ends the list there
    /// (see ``intersection(_:)``), so each date costs a bounded amount of work, however the plan is composed.
    ///
    /// - Parameters:
    ///   - date: The instant to look from; a date equal to it is not included.
    ///   - count: How many dates, at least 1.
    /// - Returns: Up to `count` dates.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidCount`` for a count below 1, or
    ///   ``PlanError/Code/invalidDate`` for a date that is not finite or out of range.
    /// - Complexity: `count` next-date computations. A cron or calendar plan's next date costs a few hundred
    ///   nanoseconds (see the benchmark package), more the first time a time zone is used (its transitions are
    ///   read once per process, and again after a running plan noticed a change of the local zone).
    public func nextDates(after date: Date, count: Int) throws(PlanError) -> [Date] {
        guard count >= 1 else {
            throw PlanError(.invalidCount, value: "\(count)", message: "count must be at least 1, got \(count)")
        }
        var start = try PlanInstant.firstNanosecond(after: date)
        var dates: [Date] = []
        dates.reserveCapacity(min(count, 1024))
        while dates.count < count, let first = start, let next = node.next(after: first - 1) {
            let found = PlanInstant.date(next)
            dates.append(found)
            start = try PlanInstant.firstNanosecond(after: found)
        }
        return dates
    }

    /// The first date strictly after `date`, or `nil` when the plan has none.
    ///
    /// The result is strictly later than `date` as a `Date` compares, so a loop that feeds each result back in
    /// always moves on (see ``nextDates(after:count:)`` for dates closer together than a `Date` can tell apart).
    /// A search that takes more than 20,000 steps ends the plan there (`nil`; see ``intersection(_:)``).
    ///
    /// - Parameter date: The instant to look from.
    /// - Returns: The next date.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidDate`` for a date that is not finite or out of range.
    public func nextDate(after date: Date) throws(PlanError) -> Date? {
        guard let first = try PlanInstant.firstNanosecond(after: date) else { return nil }
        return node.next(after: first - 1).map(PlanInstant.date)
    }

    /// The dates strictly after `date`, as a lazy sequence that ends when the plan does; each date is strictly
    /// later than the one before (as in ``nextDates(after:count:)``).
    ///
    /// - Parameter date: The instant to look from.
    /// - Returns: The sequence; iterating it computes one date per step.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidDate`` for a date that is not finite or out of range.
    public func dates(after date: Date) throws(PlanError) -> PlanDates {
        PlanDates(node: node, start: try PlanInstant.firstNanosecond(after: date).map { $0 - 1 })
    }
}

/// The dates of a ``Plan`` after an instant, computed one at a time (see ``Plan/dates(after:)``).
///
/// `PlanDates` is a value type and is `Sendable`; its iterator is a value owned by whoever iterates.
public struct PlanDates: Sequence, Sendable {
    let node: PlanNode
    /// The search starts after this instant; `nil` for an empty sequence.
    let start: Int64?

    /// Creates an iterator at the start.
    public func makeIterator() -> Iterator {
        Iterator(node: node, cursor: start)
    }

    /// Computes the next date of the plan on each call.
    public struct Iterator: IteratorProtocol, Sendable {
        let node: PlanNode
        var cursor: Int64?

        /// The next date, or `nil` when the plan has no more.
        public mutating func next() -> Date? {
            guard let current = cursor, let found = node.next(after: current) else {
                cursor = nil
                return nil
            }
            let date = PlanInstant.date(found)
            // Strictly later `Date`s only: skip the instants that read back as this same `Date`.
            cursor = (try? PlanInstant.firstNanosecond(after: date)).map { $0 - 1 }
            return date
        }
    }
}
