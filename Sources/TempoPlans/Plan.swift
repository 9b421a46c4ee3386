public import Foundation
public import Tempo

/// A plan: a sequence of future dates, such as "every weekday at 09:00 in Berlin", `0 */2 * * *`, "every 2 hours
/// until Friday" or "at these dates".
///
/// ```swift
/// let berlin = TimeZone(identifier: "Europe/Berlin")!
/// let reports = try Plan.cron("0 9 * * MON-FRI", in: berlin)
/// let next = try reports.nextDates(after: Date(), count: 5)      // preview
/// let timer = try PlanTimer(reports, handler: .fire { fire in sendReport(for: fire.planned) })
/// timer.start()                                                   // or PlanRegistry, or plan.fires()
/// ```
///
/// ## Building a plan
/// - ``dates(_:)``: fixed dates.
/// - ``every(_:anchor:)``: every interval, on a grid through an anchor date.
/// - ``calendar(_:in:localTimes:)``: a ``CalendarRule`` (times of day, weekdays, days of the month, the last
///   day of the month, months) in a time zone.
/// - ``cron(_:in:localTimes:)``: cron text, five or six fields, names, ranges, lists, steps, `@daily`-style macros.
/// - ``parse(_:in:anchor:localTimes:)``: cron text or plan text (`every weekday at 09:00`, `every 2h`).
/// - Composed: ``union(_:)-method``, ``intersection(_:)``, ``until(_:)``, ``starting(at:)``, ``first(_:after:)``,
///   ``offset(by:)``.
///
/// ## Dates
/// A plan is a pure value: the same plan yields the same dates wherever and whenever it is asked (a plan that
/// depends on "now", like ``every(_:anchor:)`` or ``first(_:after:)``, takes "now" when it is built; a plan in
/// `TimeZone.autoupdatingCurrent` follows the system's zone once a running plan noticed it changed). Calendar
/// plans compute in their named time zone; local times that a daylight-saving change skips or repeats follow
/// the plan's ``LocalTimePolicy`` (cron's behaviour by default). Dates are instants, kept to the nanosecond,
/// from 1677-09-22 to 2262-04-10 UTC; a plan ends where its next date would fall outside that range.
///
/// A calendar rule that no date satisfies (`0 0 30 2 *`) is rejected when the plan is built
/// (``PlanError/Code/neverFires``). The search for a calendar plan's next date is bounded: it looks at most one
/// 400-year Gregorian cycle ahead (after which dates and weekdays repeat exactly), so a plan that finds nothing
/// in that span has no further dates, and no call ever spins.
///
/// ## Running a plan
/// ``PlanTimer`` fires at each date on the wall clock, ``PlanRegistry`` keeps plan timers by key, and
/// ``fires(leeway:latePolicy:scheduler:)`` is an `AsyncSequence` of fires.
///
/// `Plan` is a value type and is `Sendable`; every method may be called from any thread.
public struct Plan: Sendable, CustomStringConvertible {
    let node: PlanNode
    /// What the plan is, in words: for example `cron "0 9 * * MON-FRI" in Europe/Berlin`.
    public let description: String
    /// The name a ``PlanTimer`` of this plan gives its timer (see ``labeled(_:fileID:line:)``); `nil` by default.
    public internal(set) var label: TimerLabel? = nil

    init(_ node: PlanNode, description: String) {
        self.node = node
        self.description = description
    }

    /// A plan without dates.
    public static let never = Plan(.never, description: "never")

    /// A plan of fixed dates (duplicates count once).
    ///
    /// - Parameter dates: The dates, in any order.
    /// - Returns: The plan.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidDate`` for a date that is not finite or lies outside
    ///   1677-09-22...2262-04-10.
    /// - Complexity: O(n log n) to build; O(log n) per next date.
    public static func dates(_ dates: [Date]) throws(PlanError) -> Plan {
        var instants: [Int64] = []
        instants.reserveCapacity(dates.count)
        for date in dates { instants.append(try PlanInstant.nanoseconds(date)) }
        let sorted = Array(Set(instants)).sorted()
        return Plan(.dates(sorted), description: "\(sorted.count) fixed dates")
    }

    /// A plan of every `interval`: the dates `anchor + k · interval` for every whole number `k`, so the grid
    /// never drifts however the plan is run.
    ///
    /// Calendar time does not enter: "every 24 hours" stays 24 hours apart across a daylight-saving change
    /// (use a calendar rule for "every day at 09:00").
    ///
    /// - Parameters:
    ///   - interval: The period, at least 1 ns and at most 292 years (`Int64.max` ns), a whole number of
    ///     nanoseconds.
    ///   - anchor: A date on the grid (default: now, so the next date is one interval from now).
    /// - Returns: The plan.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidInterval`` for a bad interval, or
    ///   ``PlanError/Code/invalidDate`` for a bad anchor.
    public static func every(_ interval: Duration, anchor: Date = Date()) throws(PlanError) -> Plan {
        guard interval > .zero, let step = PlanInstant.nanoseconds(interval), step >= 1 else {
            throw PlanError(
                .invalidInterval, value: "\(interval)",
                message: "interval must be a positive whole number of nanoseconds up to 292 years, got \(interval)")
        }
        let start = try PlanInstant.nanoseconds(anchor, name: "anchor")
        return Plan(.grid(anchor: start, step: step), description: "every \(interval)")
    }

    /// A plan of the dates a calendar rule matches in a time zone.
    ///
    /// - Parameters:
    ///   - rule: The rule.
    ///   - timeZone: The zone whose local time the rule speaks (default: the current zone, fixed when the plan is
    ///     built; pass `TimeZone.autoupdatingCurrent` for a plan that follows the system's zone while it runs).
    ///   - localTimes: What happens to local times a daylight-saving change skips or repeats (default cron's rule).
    /// - Returns: The plan.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidRule`` for an empty or out-of-range rule, or
    ///   ``PlanError/Code/neverFires`` for a rule no date satisfies.
    public static func calendar(
        _ rule: CalendarRule,
        in timeZone: TimeZone = .current,
        localTimes: LocalTimePolicy = .cron
    ) throws(PlanError) -> Plan {
        let matcher = try rule.matcher()
        let calendar = ZonedCalendar(matcher: matcher, timeZone: timeZone, policy: localTimes)
        return Plan(.calendar(calendar), description: "calendar rule in \(timeZone.identifier)")
    }

    /// A plan of the dates cron text matches in a time zone.
    ///
    /// Five fields (`minute hour day-of-month month day-of-week`), six with seconds first, or a macro
    /// (`@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`). Items are `*`, values,
    /// ranges `a-b`, steps `*/n`, `a-b/n` and `a/n`, joined by commas; months and weekdays accept `JAN`-`DEC` and
    /// `SUN`-`SAT` in any case, weekdays 0-7 (0 and 7 are Sunday). When both day fields are restricted (neither
    /// contains `*`), a day matches if either does, as in cron. Extensions: `?` for `*` in the day fields, `L`
    /// for the last day of the month. See the "Calendar plans" article for the differences from cron.
    ///
    /// - Parameters:
    ///   - text: The cron text.
    ///   - timeZone: The zone whose local time the fields speak (default: the current zone, fixed when the plan is
    ///     built; pass `TimeZone.autoupdatingCurrent` for a plan that follows the system's zone while it runs).
    ///   - localTimes: What happens to local times a daylight-saving change skips or repeats (default cron's rule).
    /// - Returns: The plan.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidCron`` naming the field and the text, or
    ///   ``PlanError/Code/neverFires`` for an expression no date matches, such as `0 0 30 2 *`.
    public static func cron(
        _ text: String,
        in timeZone: TimeZone = .current,
        localTimes: LocalTimePolicy = .cron
    ) throws(PlanError) -> Plan {
        let matcher = try CronParser.parse(text)
        let calendar = ZonedCalendar(matcher: matcher, timeZone: timeZone, policy: localTimes)
        return Plan(
            .calendar(calendar), description: "cron \"\(TempoError.capped(text))\" in \(timeZone.identifier)")
    }

    /// The time zone with an identifier from the system's time-zone database, such as `Europe/Berlin`.
    ///
    /// - Parameter identifier: The identifier.
    /// - Returns: The zone.
    /// - Throws: ``PlanError`` with ``PlanError/Code/unknownTimeZone`` naming the identifier.
    public static func timeZone(identifier: String) throws(PlanError) -> TimeZone {
        guard !identifier.isEmpty, let zone = TimeZone(identifier: identifier) else {
            throw PlanError(
                .unknownTimeZone, value: TempoError.capped(identifier),
                message: "unknown time zone \"\(TempoError.capped(identifier))\" (expected a name like Europe/Berlin)")
        }
        return zone
    }
}
