public import Foundation
import Tempo

extension Plan {
    /// A plan from text: cron text (see ``cron(_:in:localTimes:)``) or a short English plan.
    ///
    /// Plan text is one of:
    /// - `every <interval>`: an interval plan through `anchor`, for example `every 2h` or `every 1h30m`.
    /// - A calendar rule: days, then `at` and times, then optionally `in` and months, in any order:
    ///   `every day at 09:00`, `every weekday at 9:00 and 17:30`, `every mon, fri at 10:30`,
    ///   `on weekends at 10am`, `on the last day at 18:00`, `on day 1, 15 at 08:00 in jan, jul`.
    ///   Days are `day`/`daily`, weekday names (`monday` or `mon`), `weekday(s)` (Monday to Friday),
    ///   `weekend(s)`, `day <n>[, <n>…]` or ordinals (`1st`, `15th`) for days of the month, and `last day`.
    ///   When weekdays and days of the month are both given, a day must match both. Times are `H:MM`,
    ///   `H:MM:SS`, `Ham`/`Hpm` or `H:MMam`/`H:MMpm`.
    ///
    /// Text that begins with a digit, `*`, `?` or `@` is cron text; anything else is plan text. Numbers are written
    /// with the ASCII digits 0-9: other digits (`２:００`, `٩:٣٠`) are rejected with an error naming the word.
    ///
    /// - Parameters:
    ///   - text: The text.
    ///   - timeZone: The zone of a calendar plan (default: the current zone).
    ///   - anchor: The anchor of an interval plan (default: now).
    ///   - localTimes: What happens to skipped and repeated local times.
    /// - Returns: The plan.
    /// - Throws: ``PlanError``: ``PlanError/Code/invalidCron`` or ``PlanError/Code/neverFires`` for cron text,
    ///   ``PlanError/Code/invalidPlanText`` naming the word that was not understood,
    ///   ``PlanError/Code/neverFires`` naming plan text that no date matches (`on the 31st at 9:00 in sept`), or
    ///   the errors of ``calendar(_:in:localTimes:)`` and ``every(_:anchor:)``.
    public static func parse(
        _ text: String,
        in timeZone: TimeZone = .current,
        anchor: Date = Date(),
        localTimes: LocalTimePolicy = .cron
    ) throws(PlanError) -> Plan {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = trimmed.first else {
            throw PlanError(.invalidPlanText, value: "", message: "empty plan text")
        }
        if first.isNumber || first == "*" || first == "?" || first == "@" {
            return try cron(trimmed, in: timeZone, localTimes: localTimes)
        }
        return try PlanTextParser(text: trimmed).plan(in: timeZone, anchor: anchor, localTimes: localTimes)
    }
}

/// The parser behind ``Plan/parse(_:in:anchor:localTimes:)`` for plan text.
struct PlanTextParser {
    let text: String
    let words: [String]

    init(text: String) {
        self.text = text
        self.words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
    }

    private static let weekdayNames: [String: Weekday] = {
        var names: [String: Weekday] = [:]
        let full = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        for (index, name) in full.enumerated() {
            let day = Weekday(rawValue: index)!
            names[name] = day
            names[name + "s"] = day
            names[String(name.prefix(3))] = day
        }
        names["tues"] = .tuesday
        names["thur"] = .thursday
        names["thurs"] = .thursday
        return names
    }()

    private static let monthNames: [String: Month] = {
        var names: [String: Month] = [:]
        let full = [
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december",
        ]
        for (index, name) in full.enumerated() {
            names[name] = Month(rawValue: index + 1)!
            names[String(name.prefix(3))] = Month(rawValue: index + 1)!
        }
        names["sept"] = .september
        return names
    }()

    private static let fillers: Set<String> = [
        "every", "on", "the", "of", "month", "and", "each", "day", "days", "daily",
    ]

    func plan(in timeZone: TimeZone, anchor: Date, localTimes: LocalTimePolicy) throws(PlanError) -> Plan {
        if words.count == 2, words[0] == "every", let interval = try? DurationParser.parse(words[1]) {
            return try Plan.every(interval, anchor: anchor)
        }
        enum Section { case days, times, months, dayNumbers }
        var section = Section.days
        var times: [TimeOfDay] = []
        var weekdays: Set<Weekday> = []
        var monthDays: Set<MonthDay> = []
        var months: Set<Month> = []
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            // `Character.isNumber` holds for `٣`, `２`, `½`, `²` and `Ⅻ`, which `Int` does not parse: only 0-9 count.
            if word.contains(where: { $0.isNumber && !$0.isASCII }) {
                throw unknown(word, "not an ASCII number (write times and days with the digits 0-9)")
            }
            switch word {
            case "at":
                section = .times
                continue
            case "in":
                section = .months
                continue
            case "last":
                guard index < words.count, words[index] == "day" else { throw unknown(word, "expected \"last day\"") }
                monthDays.insert(.last)
                index += 1
                continue
            case "weekday", "weekdays", "workday", "workdays":
                weekdays.formUnion(Weekday.workdays)
                section = .days
                continue
            case "weekend", "weekends":
                weekdays.formUnion(Weekday.weekend)
                section = .days
                continue
            case "day", "days":
                if section != .times { section = .dayNumbers }
                continue
            default:
                break
            }
            if Self.fillers.contains(word) { continue }
            if section == .times, let time = Self.time(word) {
                times.append(time)
            } else if let day = Self.weekdayNames[word], section != .months {
                weekdays.insert(day)
            } else if let month = Self.monthNames[word] {
                months.insert(month)
            } else if let day = Self.dayNumber(word, plain: section == .dayNumbers) {
                guard (1...31).contains(day) else { throw unknown(word, "day of the month must be 1-31") }
                monthDays.insert(.day(day))
            } else if let time = Self.time(word), section != .months {
                times.append(time)
            } else {
                throw unknown(word, "not a day, time or month")
            }
        }
        guard !times.isEmpty else {
            throw PlanError(
                .invalidPlanText, value: TempoError.capped(text),
                message: "plan text \"\(TempoError.capped(text))\" needs a time, like \"at 09:00\", or \"every 2h\"")
        }
        let rule = CalendarRule(
            times: times,
            weekdays: weekdays.isEmpty ? nil : weekdays,
            daysOfMonth: monthDays.isEmpty ? nil : monthDays,
            months: months.isEmpty ? nil : months)
        do throws(PlanError) {
            return try Plan.calendar(rule, in: timeZone, localTimes: localTimes)
        } catch {
            guard error.code == .neverFires else { throw error }
            // In the user's words, not the rule's: "on the 31st at 9:00 in sept" never fires.
            throw PlanError(
                .neverFires, value: TempoError.capped(text),
                message: "plan text \"\(TempoError.capped(text))\" never fires: \(rule.neverFiresReason)")
        }
    }

    private func unknown(_ word: String, _ reason: String) -> PlanError {
        PlanError(
            .invalidPlanText, value: TempoError.capped(word),
            message: "\"\(TempoError.capped(word))\" in \"\(TempoError.capped(text))\": \(reason)")
    }

    /// `9:00`, `09:30:15`, `9am`, `12pm`, `9:30pm`.
    static func time(_ word: String) -> TimeOfDay? {
        var body = Substring(word)
        var meridiem: String?
        for suffix in ["am", "pm"] where body.hasSuffix(suffix) {
            meridiem = suffix
            body = body.dropLast(2)
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy(Self.isASCIIDigit) })
        else { return nil }
        guard parts.count > 1 || meridiem != nil else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count else { return nil }
        var hour = numbers[0]
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == "pm" ? 12 : 0)
        }
        let minute = numbers.count > 1 ? numbers[1] : 0
        let second = numbers.count > 2 ? numbers[2] : 0
        guard (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else { return nil }
        return TimeOfDay(hour: hour, minute: minute, second: second)
    }

    /// Whether `character` is one of the digits 0-9 (not any of the other characters `Character.isNumber` accepts).
    static func isASCIIDigit(_ character: Character) -> Bool {
        character.isASCII && character.isNumber
    }

    /// `15th`, `1st`, `2nd`, `3rd`, or a plain number after `day`.
    static func dayNumber(_ word: String, plain: Bool) -> Int? {
        var body = Substring(word)
        var ordinal = false
        for suffix in ["st", "nd", "rd", "th"] where body.hasSuffix(suffix) {
            body = body.dropLast(2)
            ordinal = true
        }
        guard ordinal || plain, !body.isEmpty, body.count <= 2, body.allSatisfy(Self.isASCIIDigit) else { return nil }
        return Int(body)
    }
}
