import Foundation
import Tempo

/// Instants inside a plan: whole nanoseconds since 1970-01-01 00:00:00 UTC in an `Int64`, the same origin as
/// Tempo's wall clock (`TimerClock.wall`). Plans therefore represent dates from 1677-09-21 to 2262-04-11 UTC;
/// a plan ends where its next date would fall outside that range.
enum PlanInstant {
    static let nanosecondsPerSecond: Int64 = 1_000_000_000

    /// The instant of `date`, rounded to the nearest nanosecond.
    ///
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidDate`` for a date that is not finite or lies outside
    ///   the representable range.
    static func nanoseconds(_ date: Date, name: String = "date") throws(PlanError) -> Int64 {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds > -9_223_372_035, seconds < 9_223_372_035 else {
            throw PlanError(
                .invalidDate, text: "\(seconds)",
                message: "\(name) \(seconds) s since 1970 is not finite or lies outside 1677-09-22...2262-04-10")
        }
        let whole = seconds.rounded(.down)
        let fraction = Int64(((seconds - whole) * 1e9).rounded())
        return Int64(whole) * nanosecondsPerSecond + fraction
    }

    /// The first instant whose `Date` (``date(_:)``) is later than `date`, or `nil` when none is in range.
    ///
    /// A `Date` holds a `Double` of seconds (about 0.24 µs apart in 2026, 1.9 µs in 2262), so several instants
    /// share one `Date`, and the nearest instant of a `Date` can read back as an earlier `Date`. Searching from this
    /// instant makes every date a plan returns strictly later than the `Date` it was asked about.
    ///
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidDate`` for a date that is not finite or out of range.
    static func firstNanosecond(after date: Date, name: String = "date") throws(PlanError) -> Int64? {
        var instant = try nanoseconds(date, name: name)
        // `date(_:)` never decreases as the instant grows, so walk to the boundary: a few steps from the nearest
        // instant (the spacing of Doubles is at most about 2,000 instants in range).
        while self.date(instant) <= date {
            let (next, overflow) = instant.addingReportingOverflow(1)
            if overflow { return nil }
            instant = next
        }
        while instant > .min, self.date(instant - 1) > date { instant -= 1 }
        return instant
    }

    /// The `Date` of an instant.
    static func date(_ nanoseconds: Int64) -> Date {
        let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: nanosecondsPerSecond)
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / 1e9)
    }

    /// The wall-clock `TimerInstant` of an instant.
    static func timerInstant(_ nanoseconds: Int64) -> TimerInstant {
        TimerInstant(offset: .nanoseconds(nanoseconds))
    }

    /// The instant of a wall-clock `TimerInstant`, rounded down to whole nanoseconds and saturated to the range.
    static func nanoseconds(_ instant: TimerInstant) -> Int64 {
        let (quotient, _) = instant.offset.attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let floor =
            instant.offset.attoseconds < 0 && quotient * 1_000_000_000 != instant.offset.attoseconds
            ? quotient - 1 : quotient
        return Int64(clamping: floor)
    }

    /// Whole nanoseconds of a duration, or `nil` when it is not a whole number of nanoseconds within `Int64`.
    static func nanoseconds(_ duration: Duration) -> Int64? {
        let (quotient, remainder) = duration.attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        guard remainder == 0, let value = Int64(exactly: quotient) else { return nil }
        return value
    }
}
