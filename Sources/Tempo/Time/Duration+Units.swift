// Package-only: a public extension on a standard type collides with any other package that adds the same names (a
// user importing both could no longer write `.minutes(5)`), and `.seconds(5 * 60)` says the same. See CHANGELOG.md.
extension Duration {
    /// Exactly `minutes` minutes (`minutes × 60` seconds, computed on 128-bit attoseconds).
    ///
    /// - Parameter minutes: The number of minutes (negative for a negative duration).
    /// - Returns: The duration.
    /// - Precondition: The result fits in `Duration` (about ±5.4 trillion years), which every `Int` up to
    ///   ±2.8 × 10¹⁸ minutes does. Tempo's timers reject anything above 292 years (`Int64.max` ns) (about 292
    ///   years) with a `TempoError`; parse untrusted text with `DurationParser`, which never traps.
    package static func minutes<T: BinaryInteger>(_ minutes: T) -> Duration {
        exactMultiple(minutes, ofSeconds: 60, unit: "minutes")
    }

    /// Exactly `hours` hours (`hours × 3,600` seconds, computed on 128-bit attoseconds).
    ///
    /// - Parameter hours: The number of hours (negative for a negative duration).
    /// - Returns: The duration.
    /// - Precondition: The result fits in `Duration`, which every value up to ±4.7 × 10¹⁶ hours does; see
    ///   `minutes(_:)`.
    package static func hours<T: BinaryInteger>(_ hours: T) -> Duration {
        exactMultiple(hours, ofSeconds: 3_600, unit: "hours")
    }

    /// Exactly `days` days of 86,400 seconds (elapsed time: no calendar, no daylight-saving shifts).
    ///
    /// - Parameter days: The number of days (negative for a negative duration).
    /// - Returns: The duration.
    /// - Precondition: The result fits in `Duration`, which every value up to ±1.9 × 10¹⁵ days does; see
    ///   `minutes(_:)`.
    package static func days<T: BinaryInteger>(_ days: T) -> Duration {
        exactMultiple(days, ofSeconds: 86_400, unit: "days")
    }

    private static func exactMultiple<T: BinaryInteger>(_ count: T, ofSeconds seconds: Int128, unit: String) -> Duration
    {
        guard let wide = Int128(exactly: count) else {
            preconditionFailure("Duration.\(unit)(\(count)) does not fit in Duration")
        }
        let (attoseconds, overflow) = wide.multipliedReportingOverflow(by: seconds * 1_000_000_000_000_000_000)
        precondition(!overflow, "Duration.\(unit)(\(count)) does not fit in Duration")
        return Duration(attoseconds: attoseconds)
    }
}
