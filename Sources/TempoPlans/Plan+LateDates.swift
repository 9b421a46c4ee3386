package import Foundation

extension Plan {
    /// The dates of a plan that fell due in a span of time, as one summary: the latest of them and how many there
    /// were. What a job scheduler needs after downtime (TempoJobs), computed by the engine a ``PlanTimer`` runs on.
    package struct LateDates: Sendable, Hashable {
        /// The latest date of the span.
        package let latest: Date
        /// How many dates the span holds, the latest included; at least 1.
        package let count: Int
        /// Whether ``count`` is a lower bound: a plan that is neither an interval nor a list of dates is counted
        /// one date at a time, at most ``countLimit`` of them.
        package let countIsLowerBound: Bool

        package init(latest: Date, count: Int, countIsLowerBound: Bool) {
            self.latest = latest
            self.count = count
            self.countIsLowerBound = countIsLowerBound
        }
    }

    /// The most dates ``lateDates(after:through:)`` counts one by one (calendar and composed plans); interval plans
    /// and lists of dates are counted exactly, whatever their number. The same limit as a plan timer's count of
    /// missed dates (``PlanFire/missedIsLowerBound``).
    package static var countLimit: Int { PlanCursor.countLimit }

    /// The dates in `(after, through]`, as `Date`s compare: the latest and how many, or `nil` when there are none.
    ///
    /// Bounds outside the plans' range (1677-09-22 to 2262-04-10) are taken as that range's ends, so
    /// `Date.distantPast` means "since the plan's first date".
    ///
    /// - Complexity: About 64 next-date computations to find the latest, whatever the span (a wall clock set
    ///   56 years ahead costs the same as a minute), and at most ``countLimit`` more to count a calendar plan's
    ///   dates; O(1) to count an interval plan's, O(log n) a list's.
    package func lateDates(after: Date, through: Date) -> LateDates? {
        guard after.timeIntervalSince1970.isFinite, through.timeIntervalSince1970.isFinite else { return nil }
        let served = PlanInstant.lastNanosecond(atOrBefore: after)
        let end = PlanInstant.lastNanosecond(atOrBefore: through)
        guard end > served else { return nil }
        var cursor = PlanCursor(node: node, policy: .coalesce, start: served)
        guard case .deliver(let latest, let missed, let lowerBound) = cursor.decide(now: end) else { return nil }
        var count = missed + 1
        var isLowerBound = lowerBound
        switch node {
        case .grid, .dates:
            (count, _) = node.count(after: served, through: latest, limit: .max)
            isLowerBound = false
        default:
            break
        }
        return LateDates(latest: PlanInstant.date(latest), count: count, countIsLowerBound: isLowerBound)
    }
}

extension PlanInstant {
    /// The last instant whose `Date` is not later than `date` (saturated to the plans' range at both ends), for a
    /// finite `date`.
    static func lastNanosecond(atOrBefore date: Date) -> Int64 {
        do {
            guard let first = try firstNanosecond(after: date) else { return .max }
            return first == .min ? .min : first - 1
        } catch {
            return date.timeIntervalSince1970 < 0 ? .min : .max
        }
    }
}
