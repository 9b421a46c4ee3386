/// The day and time-of-day sets of a calendar rule or cron expression, as bit masks, and the search for the
/// next matching *local* time (seconds since 1970-01-01 00:00:00 of local time) at or after a given one.
///
/// Days match as cron says: when both the days of the month and the weekdays are restricted, a day matches
/// if either does (``DayMatching/either``), unless the rule asks for both (``DayMatching/both``).
struct CalendarMatcher: Hashable, Sendable {
    /// How the day-of-month and weekday sets combine when both are restricted.
    enum DayMatching: Hashable, Sendable {
        /// A day matches when it is in either set (cron).
        case either
        /// A day matches when it is in both sets ("Friday the 13th").
        case both
    }

    /// The times of day: the product of three sets (cron), or an explicit sorted list of seconds of the day.
    enum TimesOfDay: Hashable, Sendable {
        case fields(seconds: UInt64, minutes: UInt64, hours: UInt32)
        case list([Int32])
    }

    var times: TimesOfDay
    /// Bits 1-31: days of the month; `nil` for every day.
    var daysOfMonth: UInt32?
    /// Whether the last day of each month matches (cron's `L`).
    var lastDayOfMonth = false
    /// Bits 0-6: weekdays, 0 is Sunday; `nil` for every weekday.
    var weekdays: UInt8?
    /// Bits 1-12: months.
    var months: UInt16 = 0x1FFE
    var dayMatching: DayMatching = .either
    /// Whether the rule fires hourly or more often (cron: its minute or hour field begins with `*`), which the
    /// ``LocalTimePolicy/cron`` policy treats like cron does.
    var isWildcard = false

    /// The longest stretch of local time searched before a rule is declared never to fire: one 400-year
    /// Gregorian cycle (146,097 days, after which dates and weekdays repeat exactly) and a day.
    static let searchLimitDays: Int64 = 146_097 + 1

    // MARK: Days

    private var domRestricted: Bool { daysOfMonth != nil || lastDayOfMonth }

    /// The days of a month (bits 1...`length`) that match, given the weekday of its first day.
    @inline(__always)
    func dayMask(length: Int, firstWeekday: Int) -> UInt32 {
        let valid: UInt32 = (UInt32(1) << UInt32(length + 1)) &- 2
        var dom: UInt32 = daysOfMonth ?? 0
        if lastDayOfMonth { dom |= UInt32(1) << UInt32(length) }
        let dow: UInt32
        if let weekdays {
            // Weekday of day d is (firstWeekday + d - 1) % 7: repeat the 7-bit pattern, aligned to day 1.
            let rotated = UInt32(weekdays) >> UInt32(firstWeekday) | (UInt32(weekdays) << UInt32(7 - firstWeekday))
            let week = rotated & 0x7F
            dow = (week | week << 7 | week << 14 | week << 21 | week << 28) << 1
        } else {
            dow = 0
        }
        let mask: UInt32
        switch (domRestricted, weekdays != nil) {
        case (false, false): mask = valid
        case (true, false): mask = dom
        case (false, true): mask = dow
        case (true, true): mask = dayMatching == .either ? dom | dow : dom & dow
        }
        return mask & valid
    }

    // MARK: Times of day

    /// The first matching second of the day at or after `second` (0..<86,400), or `nil` if none is left.
    @inline(__always)
    func nextTime(atOrAfter second: Int) -> Int? {
        switch times {
        case .list(let list):
            var low = 0
            var high = list.count
            while low < high {
                let mid = (low + high) / 2
                if Int(list[mid]) < second { low = mid + 1 } else { high = mid }
            }
            return low < list.count ? Int(list[low]) : nil
        case .fields(let seconds, let minutes, let hours):
            var h = second / 3600
            var m = (second / 60) % 60
            var s = second % 60
            while h < 24 {
                guard let nh = Self.nextBit(UInt64(hours), from: h) else { return nil }
                if nh != h { (h, m, s) = (nh, 0, 0) }
                guard let nm = Self.nextBit(minutes, from: m) else {
                    (h, m, s) = (h + 1, 0, 0)
                    continue
                }
                if nm != m { (m, s) = (nm, 0) }
                guard let ns = Self.nextBit(seconds, from: s) else {
                    (m, s) = (m + 1, 0)
                    if m == 60 { (h, m) = (h + 1, 0) }
                    continue
                }
                return h * 3600 + m * 60 + ns
            }
            return nil
        }
    }

    /// The lowest set bit of `mask` at position `from` or above.
    @inline(__always)
    static func nextBit(_ mask: UInt64, from: Int) -> Int? {
        guard from < 64 else { return nil }
        let rest = mask >> UInt64(from)
        return rest == 0 ? nil : from + rest.trailingZeroBitCount
    }

    // MARK: Search

    /// The first matching local time at or after `local`, searching at most ``searchLimitDays`` days ahead.
    ///
    /// - Returns: Local seconds since 1970, or `nil` when nothing matches within the limit (the rule never fires).
    /// - Complexity: O(1) per month or day skipped; a rule that fires monthly or more often returns within a few
    ///   dozen steps.
    func nextLocal(atOrAfter local: Int64) -> Int64? {
        var day = CivilTime.floorDivide(local, CivilTime.secondsPerDay)
        var second = Int(local - day * CivilTime.secondsPerDay)
        let limit = day + Self.searchLimitDays
        var (year, month, dayOfMonth) = CivilTime.date(days: day)
        while day <= limit {
            // Month.
            if months & (1 << UInt16(month)) == 0 {
                guard let next = Self.nextBit(UInt64(months), from: month + 1) else {
                    year += 1
                    month = Self.nextBit(UInt64(months), from: 1) ?? 13
                    guard month <= 12 else { return nil }
                    day = CivilTime.days(year: year, month: month, day: 1)
                    (dayOfMonth, second) = (1, 0)
                    continue
                }
                month = next
                day = CivilTime.days(year: year, month: month, day: 1)
                (dayOfMonth, second) = (1, 0)
                continue
            }
            // Day within the month.
            let length = CivilTime.daysInMonth(year: year, month: month)
            let firstDay = day - Int64(dayOfMonth - 1)
            let mask = dayMask(length: length, firstWeekday: CivilTime.weekday(days: firstDay))
            guard let matchDay = Self.nextBit(UInt64(mask), from: dayOfMonth) else {
                (year, month) = month == 12 ? (year + 1, 1) : (year, month + 1)
                day = firstDay + Int64(length)
                (dayOfMonth, second) = (1, 0)
                continue
            }
            if matchDay != dayOfMonth {
                day += Int64(matchDay - dayOfMonth)
                (dayOfMonth, second) = (matchDay, 0)
            }
            // Time of day.
            if let time = nextTime(atOrAfter: second) {
                return day * CivilTime.secondsPerDay + Int64(time)
            }
            day += 1
            second = 0
            if dayOfMonth == length {
                (year, month, dayOfMonth) = month == 12 ? (year + 1, 1, 1) : (year, month + 1, 1)
            } else {
                dayOfMonth += 1
            }
        }
        return nil
    }

    /// Whether some day of some year matches the day and month sets (leap years included).
    var canFire: Bool {
        guard months != 0 else { return false }
        if weekdays != nil && (dayMatching == .either || !domRestricted) { return weekdays != 0 }
        guard domRestricted else { return true }
        // Days of the month restricted (alone, or together with weekdays under `.both`): some month in the set
        // must have one of the days. Every weekday falls on every day number of every month in 400 years.
        for month in 1...12 where months & (1 << UInt16(month)) != 0 {
            let longest = month == 2 ? 29 : CivilTime.daysInMonth(year: 2001, month: month)
            let dom = (daysOfMonth ?? 0) & ((UInt32(1) << UInt32(longest + 1)) &- 2)
            if dom != 0 || lastDayOfMonth {
                if weekdays == nil || weekdays != 0 { return true }
            }
        }
        return false
    }
}
