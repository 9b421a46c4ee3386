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
                .invalidDate, value: "\(seconds)",
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
        // `date(_:)` never decreases as the instant grows: binary search between the nearest instants of `date`
        // and of the next `Double` (up to about 2,000 instants apart in range).
        var low = try nanoseconds(date, name: name)
        while self.date(low) > date {
            guard low > .min else { return .min }
            low -= 1
        }
        let next = Date(timeIntervalSince1970: date.timeIntervalSince1970.nextUp)
        guard var high = try? nanoseconds(next) else { return nil }
        while self.date(high) <= date {
            let (above, overflow) = high.addingReportingOverflow(1)
            if overflow { return nil }
            high = above
        }
        // date(low) <= date < date(high)
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if self.date(mid) <= date { low = mid } else { high = mid }
        }
        return high
    }

    /// The last instant whose `Date` (``date(_:)``) is that of `instant`: at or after it, and before the first
    /// instant of the next `Date` (`Int64.max` when there is none in range).
    static func lastNanosecond(sharingDateOf instant: Int64) -> Int64 {
        // `instant` is in range, so its `Date` is too and the search cannot throw.
        guard let next = try? firstNanosecond(after: date(instant)) else { return .max }
        return max(instant, next - 1)
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
        instant.nanosecondsRoundedDown
    }

    /// Whole nanoseconds of a duration, or `nil` when it is not a whole number of nanoseconds within `Int64`.
    static func nanoseconds(_ duration: Duration) -> Int64? {
        duration.exactNanoseconds
    }
}
