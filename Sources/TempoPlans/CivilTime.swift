/// Proleptic Gregorian calendar arithmetic on seconds since 1970-01-01 00:00:00 (of UTC or of a local time),
/// without Foundation, so that computing a plan's next date costs nanoseconds.
///
/// The day algorithms are Howard Hinnant's `days_from_civil` / `civil_from_days`, exact for every `Int64` day
/// count this package uses.
enum CivilTime {
    static let secondsPerDay: Int64 = 86_400

    /// `a` divided by `b`, rounded towards negative infinity.
    @inline(__always)
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// The number of days from 1970-01-01 to the given date.
    static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `days` days after 1970-01-01.
    static func date(days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The weekday of the day `days` after 1970-01-01: 0 is Sunday, 6 is Saturday (1970-01-01 was a Thursday).
    @inline(__always)
    static func weekday(days: Int64) -> Int {
        Int(((days % 7) + 11) % 7)
    }

    static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int64, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
