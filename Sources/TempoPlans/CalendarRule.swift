/// A rule of the calendar: times of day, on some weekdays, days of the month and months, such as "every
/// Monday and Friday at 10:30" or "on the last day of each month at 18:00".
///
/// ```swift
/// let standUp = CalendarRule(times: [TimeOfDay(hour: 9, minute: 30)], weekdays: Weekday.workdays)
/// let plan = try Plan.calendar(standUp, in: TimeZone(identifier: "Europe/Berlin")!)
/// ```
///
/// A rule becomes a ``Plan`` with ``Plan/calendar(_:in:localTimes:)``, which validates it. A `nil` set means
/// "every". When both ``weekdays`` and ``daysOfMonth`` are given, a day must match both by default
/// (``DayMatching/both``: "Friday the 13th", "the first Monday": days 1-7 and Monday); cron text matches either
/// (``DayMatching/either``).
///
/// `CalendarRule` is a value type and is `Sendable`.
public struct CalendarRule: Hashable, Sendable {
    /// How ``CalendarRule/weekdays`` and ``CalendarRule/daysOfMonth`` combine when both are given.
    ///
    /// An enum, closed: two sets combine by both or either.
    public enum DayMatching: Hashable, Sendable {
        /// A day matches when it is in both sets.
        case both
        /// A day matches when it is in either set (cron's rule for two restricted day fields).
        case either
    }

    /// The local times of day at which the rule fires, on every matching day. Must not be empty.
    public var times: [TimeOfDay]
    /// The weekdays, or `nil` for every weekday.
    public var weekdays: Set<Weekday>?
    /// The days of the month, or `nil` for every day.
    public var daysOfMonth: Set<MonthDay>?
    /// The months, or `nil` for every month.
    public var months: Set<Month>?
    /// How weekdays and days of the month combine (default ``DayMatching/both``).
    public var dayMatching: DayMatching

    /// Creates a rule; ``Plan/calendar(_:in:localTimes:)`` validates it.
    ///
    /// - Parameters:
    ///   - times: The local times of day.
    ///   - weekdays: The weekdays (default every weekday).
    ///   - daysOfMonth: The days of the month (default every day).
    ///   - months: The months (default every month).
    ///   - dayMatching: How weekdays and days of the month combine when both are given.
    public init(
        times: [TimeOfDay],
        weekdays: Set<Weekday>? = nil,
        daysOfMonth: Set<MonthDay>? = nil,
        months: Set<Month>? = nil,
        dayMatching: DayMatching = .both
    ) {
        self.times = times
        self.weekdays = weekdays
        self.daysOfMonth = daysOfMonth
        self.months = months
        self.dayMatching = dayMatching
    }

    /// The matcher of a valid rule.
    ///
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidRule`` for no times, a time or day out of range, or an
    ///   empty set; ``PlanError/Code/neverFires`` for a rule that no date matches (the 30th of February).
    func matcher() throws(PlanError) -> CalendarMatcher {
        guard !times.isEmpty else {
            throw PlanError(.invalidRule, value: "[]", message: "a calendar rule needs at least one time of day")
        }
        var seconds: [Int32] = []
        for time in times {
            guard (0...23).contains(time.hour), (0...59).contains(time.minute), (0...59).contains(time.second) else {
                throw PlanError(
                    .invalidRule, value: "\(time)",
                    message: "time of day \(time) is out of range 00:00:00-23:59:59")
            }
            seconds.append(Int32(time.hour * 3600 + time.minute * 60 + time.second))
        }
        seconds = Array(Set(seconds)).sorted()
        var matcher = CalendarMatcher(times: .list(seconds))
        let hours = Set(times.map(\.hour))
        let minutes = Set(times.map(\.minute))
        matcher.isWildcard = hours.count == 24 || minutes.count == 60
        if let weekdays {
            guard !weekdays.isEmpty else {
                throw PlanError(
                    .invalidRule, value: "[]", message: "the set of weekdays is empty (use nil for every day)")
            }
            matcher.weekdays = weekdays.reduce(0) { $0 | UInt8(1) << UInt8($1.rawValue) }
        }
        if let daysOfMonth {
            guard !daysOfMonth.isEmpty else {
                throw PlanError(
                    .invalidRule, value: "[]", message: "the set of days of the month is empty (use nil for every day)")
            }
            var mask: UInt32 = 0
            for day in daysOfMonth {
                switch day.kind {
                case .last:
                    matcher.lastDayOfMonth = true
                case .day(let n):
                    guard (1...31).contains(n) else {
                        throw PlanError(
                            .invalidRule, value: "\(n)", message: "day of the month \(n) is out of range 1-31")
                    }
                    mask |= UInt32(1) << UInt32(n)
                }
            }
            matcher.daysOfMonth = mask == 0 ? nil : mask
        }
        if let months {
            guard !months.isEmpty else {
                throw PlanError(
                    .invalidRule, value: "[]", message: "the set of months is empty (use nil for every month)")
            }
            matcher.months = months.reduce(0) { $0 | UInt16(1) << UInt16($1.rawValue) }
        }
        matcher.dayMatching = dayMatching == .both ? .both : .either
        guard matcher.canFire else {
            throw PlanError(.neverFires, value: summary, message: "the rule never fires: \(neverFiresReason)")
        }
        return matcher
    }
}

/// A local time of day: hour, minute and second on a 24-hour clock.
///
/// `TimeOfDay` is a value type and is `Sendable`; ``Plan/calendar(_:in:localTimes:)`` checks its range.
public struct TimeOfDay: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The hour, 0-23.
    public var hour: Int
    /// The minute, 0-59.
    public var minute: Int
    /// The second, 0-59.
    public var second: Int

    /// Creates a time of day (validated when a plan is made of it).
    ///
    /// - Parameters:
    ///   - hour: 0-23.
    ///   - minute: 0-59.
    ///   - second: 0-59 (default 0).
    public init(hour: Int, minute: Int, second: Int = 0) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Orders times of day from midnight.
    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        (lhs.hour, lhs.minute, lhs.second) < (rhs.hour, rhs.minute, rhs.second)
    }

    /// `HH:MM`, or `HH:MM:SS` when the second is not zero.
    public var description: String {
        func two(_ n: Int) -> String { n >= 0 && n < 10 ? "0\(n)" : "\(n)" }
        return second == 0 ? "\(two(hour)):\(two(minute))" : "\(two(hour)):\(two(minute)):\(two(second))"
    }
}

/// A day of the week; raw values follow cron (0 is Sunday).
///
/// An enum, closed: the seven days of the week.
public enum Weekday: Int, Hashable, Sendable, CaseIterable {
    /// Sunday (cron 0 or 7).
    case sunday = 0
    /// Monday.
    case monday
    /// Tuesday.
    case tuesday
    /// Wednesday.
    case wednesday
    /// Thursday.
    case thursday
    /// Friday.
    case friday
    /// Saturday.
    case saturday

    /// Monday to Friday.
    public static let workdays: Set<Weekday> = [.monday, .tuesday, .wednesday, .thursday, .friday]
    /// Saturday and Sunday.
    public static let weekend: Set<Weekday> = [.saturday, .sunday]
}

/// A month; raw values are 1 (January) to 12 (December).
///
/// An enum, closed: the twelve months of the Gregorian calendar.
public enum Month: Int, Hashable, Sendable, CaseIterable {
    /// January.
    case january = 1
    /// February.
    case february
    /// March.
    case march
    /// April.
    case april
    /// May.
    case may
    /// June.
    case june
    /// July.
    case july
    /// August.
    case august
    /// September.
    case september
    /// October.
    case october
    /// November.
    case november
    /// December.
    case december
}

/// A day of the month: a day number, or the last day of whatever month it is.
///
/// A struct with static members rather than an enum, so that a later version can add a kind of day (a last weekday,
/// say): compare with `==`. `MonthDay` is a value type and is `Sendable`.
public struct MonthDay: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of day, for TempoPlans' own exhaustive switches.
    package enum Kind: Hashable, Sendable {
        case day(Int)
        case last
    }

    /// Which kind of day this is, with its number.
    package let kind: Kind

    package init(kind: Kind) {
        self.kind = kind
    }

    /// Day `n` (1-31); a month without that day is passed over (no 31st in April). Another `n` is rejected where the
    /// rule is validated (``Plan/calendar(_:in:localTimes:)`` throws ``PlanError``).
    ///
    /// - Parameter n: The day number.
    /// - Returns: The day of the month.
    public static func day(_ n: Int) -> MonthDay {
        MonthDay(kind: .day(n))
    }

    /// The last day of the month: the 28th, 29th, 30th or 31st.
    public static let last = MonthDay(kind: .last)

    /// `day(<n>)` or `last`.
    public var description: String {
        switch kind {
        case .day(let n): "day(\(n))"
        case .last: "last"
        }
    }
}
