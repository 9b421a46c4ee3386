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
            var base = max(reference.adding(.zero - offset), floor ?? .distantPast)
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

    /// The dates in `start <.. end`, oldest first, at most `limit` (for a fixed delay, the one date a delay after
    /// `start` if it is not after `end`).
    func dates(after start: Date, through end: Date, limit: Int = 100_000) -> [Date] {
        var source = self
        source.first = false
        var dates: [Date] = []
        var reference = start
        while dates.count < limit, let date = source.next(after: reference), date <= end {
            dates.append(date)
            if case .fixedDelay = kind { break }
            reference = date
        }
        return dates
    }
}
