import Foundation
import TempoPlans

/// The dates of one job's schedule, spread included, in wall-clock time.
struct DateSource {
    private enum Kind {
        case plan(Plan)
        case fixedDelay(Duration)
    }

    private let kind: Kind
    private let offset: Duration
    /// The grid's anchor for a fixed rate: its dates come after it, so the first is one interval after the start.
    private let floor: Date?
    private var first = true

    /// - Parameters:
    ///   - schedule: The job's schedule.
    ///   - offset: The job's stable spread.
    ///   - start: Now, when planning starts: the anchor of a fixed rate without a cursor.
    ///   - cursor: The last date served, whose grid a fixed rate keeps.
    init(_ schedule: JobDefinition.Schedule, offset: Duration, start: Date, cursor: Date?) {
        self.offset = offset
        switch schedule {
        case .every(let interval):
            // Validated at registration; an anchor outside the plans' range ends the job.
            let anchor = cursor?.adding(.zero - offset) ?? start
            kind = .plan((try? Plan.every(interval, anchor: anchor)) ?? .never)
            floor = anchor
        case .fixedDelay(let interval):
            kind = .fixedDelay(interval)
            floor = nil
        case .plan(let plan), .once(_, let plan):
            kind = .plan(plan)
            floor = nil
        }
    }

    /// The first date after `reference` (for a fixed delay: `interval` after it, the spread added to the first);
    /// `nil` when the schedule has no more.
    mutating func next(after reference: Date) -> Date? {
        switch kind {
        case .plan(let plan):
            // A plan counts in nanoseconds, a `Date` in binary fractions of a second (about 0.1 µs apart in this
            // century): the plan's next date, rounded to a `Date`, can land at or before `reference`. Ask again
            // a little later until it is after, so dates strictly increase (no date runs twice).
            // Plans start in 1677: a reference before that (`Date.distantPast`) asks for the plan's first date.
            var base = max(reference.adding(.zero - offset), floor ?? .distantPast, Self.earliest)
            var nudge = 1e-6
            for _ in 0..<64 {
                guard let planned = try? plan.nextDate(after: base) else { return nil }
                let date = planned.adding(offset)
                if date > reference { return date }
                base = max(base, planned).addingTimeInterval(nudge)
                nudge *= 2
            }
            return nil
        case .fixedDelay(let interval):
            defer { first = false }
            return reference.adding(first ? interval + offset : interval)
        }
    }

    /// Near the earliest date plans represent (1677-09-22).
    private static let earliest = Date(timeIntervalSince1970: -9_223_372_000)

    /// The dates in `start <.. end` (`start` clamped to the grid's anchor): the latest and how many, or `nil` when
    /// there are none. For a fixed delay: the one date a delay after `start`, if it is not after `end`.
    ///
    /// Computed by the plans' own engine (``Plan/lateDates(after:through:)``), in bounded time and memory however
    /// long the span: no list of the dates is built.
    func late(after start: Date, through end: Date) -> Plan.LateDates? {
        switch kind {
        case .plan(let plan):
            let from = max(start, floor ?? .distantPast).adding(.zero - offset)
            guard let late = plan.lateDates(after: from, through: end.adding(.zero - offset)) else { return nil }
            let latest = late.latest.adding(offset)
            guard latest > start, latest <= end else {
                // The offset moved the latest date across a bound by less than a `Date` tells apart.
                return nil
            }
            return Plan.LateDates(latest: latest, count: late.count, countIsLowerBound: late.countIsLowerBound)
        case .fixedDelay(let interval):
            let date = start.adding(interval)
            guard date <= end else { return nil }
            return Plan.LateDates(latest: date, count: 1, countIsLowerBound: false)
        }
    }

    /// Whether the dates come a delay after each run (a fixed delay), not from a plan.
    var isFixedDelay: Bool {
        if case .fixedDelay = kind { return true }
        return false
    }
}
