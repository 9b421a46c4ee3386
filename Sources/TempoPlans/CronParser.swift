import Tempo

/// Parses cron text into a ``CalendarMatcher``: five fields (minute hour day-of-month month day-of-week), six
/// with a leading seconds field, or a macro (`@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`,
/// `@midnight`, `@hourly`).
///
/// Each field is a comma-separated list of items; an item is `*`, a value, a range `a-b`, or either followed
/// by a step `/n` (`*/15`, `1-30/5`; `a/n` means `a-max/n`). Months and weekdays accept three-letter English
/// names in any case (`JAN`, `mon`), also in ranges. Weekdays run 0-7 with 0 and 7 both Sunday, and a range
/// ending in `SUN` ends on day 7 (`FRI-SUN`). `?` means `*` in the day fields, and `L` in the day-of-month
/// field means the last day of the month (Quartz extensions).
enum CronParser {
    private struct FieldSpec {
        let field: CronField
        let range: ClosedRange<Int>
        let names: [String]
        /// The value the first name stands for.
        let nameBase: Int
    }

    private static let specs: [CronField: FieldSpec] = [
        .second: FieldSpec(field: .second, range: 0...59, names: [], nameBase: 0),
        .minute: FieldSpec(field: .minute, range: 0...59, names: [], nameBase: 0),
        .hour: FieldSpec(field: .hour, range: 0...23, names: [], nameBase: 0),
        .dayOfMonth: FieldSpec(field: .dayOfMonth, range: 1...31, names: [], nameBase: 1),
        .month: FieldSpec(
            field: .month, range: 1...12,
            names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], nameBase: 1),
        .dayOfWeek: FieldSpec(
            field: .dayOfWeek, range: 0...7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"], nameBase: 0),
    ]

    private static let macros: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
        "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]

    /// Parses `text`.
    ///
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidCron`` naming the field and the text, or
    ///   ``PlanError/Code/neverFires`` for a valid expression that no date matches (`0 0 30 2 *`).
    static func parse(_ text: String) throws(PlanError) -> CalendarMatcher {
        let trimmed = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        var words = trimmed.map(String.init)
        if words.count == 1, let first = words.first, first.hasPrefix("@") {
            guard let expansion = macros[first.lowercased()] else {
                let reason =
                    first.lowercased() == "@reboot"
                    ? "@reboot names no time (it runs when cron starts), so it cannot be planned"
                    : "unknown macro \(TempoError.capped(first)); expected @yearly, @annually, @monthly, @weekly, "
                        + "@daily, @midnight or @hourly"
                throw PlanError(.invalidCron, field: .expression, value: TempoError.capped(first), message: reason)
            }
            words = expansion.split(separator: " ").map(String.init)
        }
        guard words.count == 5 || words.count == 6 else {
            throw PlanError(
                .invalidCron, field: .expression, value: TempoError.capped(text),
                message: "expected 5 fields (minute hour day-of-month month day-of-week) or 6 (with seconds first), "
                    + "got \(words.count) in \"\(TempoError.capped(text))\"")
        }
        let hasSeconds = words.count == 6
        let fields: [CronField] =
            (hasSeconds ? [.second] : []) + [.minute, .hour, .dayOfMonth, .month, .dayOfWeek]
        var masks: [CronField: UInt64] = [:]
        var lastDay = false
        for (field, word) in zip(fields, words) {
            let parsed = try parseField(word, spec: specs[field]!)
            masks[field] = parsed.mask
            lastDay = lastDay || parsed.last
        }
        let domWord = words[fields.firstIndex(of: .dayOfMonth)!]
        let dowWord = words[fields.firstIndex(of: .dayOfWeek)!]
        let minuteWord = words[fields.firstIndex(of: .minute)!]
        let hourWord = words[fields.firstIndex(of: .hour)!]
        var weekdays = masks[.dayOfWeek]!
        if weekdays & (1 << 7) != 0 { weekdays = (weekdays | 1) & 0x7F }
        let domStar = domWord.contains("*") || domWord.contains("?")
        let dowStar = dowWord.contains("*") || dowWord.contains("?")
        var matcher = CalendarMatcher(
            times: .fields(
                seconds: hasSeconds ? masks[.second]! : 1, minutes: masks[.minute]!, hours: UInt32(masks[.hour]!)))
        matcher.daysOfMonth = domWord == "*" || domWord == "?" ? nil : UInt32(masks[.dayOfMonth]!)
        matcher.lastDayOfMonth = lastDay
        matcher.weekdays = dowWord == "*" || dowWord == "?" ? nil : UInt8(weekdays)
        matcher.months = UInt16(masks[.month]!)
        // Cron (Vixie, cronie): days match when either field does, unless one of them contains a `*`.
        matcher.dayMatching = domStar || dowStar ? .both : .either
        // Cron's "wildcard" jobs: the minute or hour field begins with `*`.
        matcher.isWildcard = minuteWord.hasPrefix("*") || hourWord.hasPrefix("*")
        guard matcher.canFire else {
            throw PlanError(
                .neverFires, field: .dayOfMonth, value: TempoError.capped(text),
                message: "\"\(TempoError.capped(text))\" never fires: no month in \(words[fields.count - 2]) has "
                    + "day \(domWord)")
        }
        return matcher
    }

    /// Parses one field into a bit mask (bit n set for value n) and whether it contains `L`.
    private static func parseField(_ word: String, spec: FieldSpec) throws(PlanError) -> (mask: UInt64, last: Bool) {
        var mask: UInt64 = 0
        var last = false
        let items = word.split(separator: ",", omittingEmptySubsequences: false)
        for item in items {
            // `Character.isNumber` holds for `٣`, `２` or `½`, which `Int` does not parse: name them plainly.
            if let digit = item.first(where: { $0.isNumber && !$0.isASCII }) {
                throw error(
                    spec, String(item),
                    "\"\(TempoError.capped(item))\" is not an ASCII number (\"\(digit)\"; write the digits 0-9)")
            }
            guard !item.isEmpty else {
                throw error(spec, word, "empty item in the list \"\(TempoError.capped(word))\"")
            }
            if item == "L" || item == "l" {
                guard spec.field == .dayOfMonth else {
                    throw error(
                        spec, String(item), "L (last day of the month) is only allowed in the day-of-month field")
                }
                last = true
                continue
            }
            if item == "?" {
                guard spec.field == .dayOfMonth || spec.field == .dayOfWeek else {
                    throw error(spec, String(item), "? is only allowed in the day-of-month and day-of-week fields")
                }
                mask |= fullMask(spec)
                continue
            }
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2 else {
                throw error(spec, String(item), "more than one / in \"\(TempoError.capped(item))\"")
            }
            var step = 1
            if parts.count == 2 {
                guard let value = number(parts[1]), value >= 1, value <= spec.range.count else {
                    throw error(
                        spec, String(parts[1]),
                        "step \"\(TempoError.capped(parts[1]))\" must be a number from 1 to \(spec.range.count)")
                }
                step = value
            }
            let body = parts[0]
            var low: Int
            var high: Int
            if body == "*" {
                (low, high) = (spec.range.lowerBound, spec.field == .dayOfWeek ? 6 : spec.range.upperBound)
            } else {
                let bounds = body.split(separator: "-", omittingEmptySubsequences: false)
                guard bounds.count <= 2 else {
                    throw error(spec, String(body), "\"\(TempoError.capped(body))\" is not a value or a range a-b")
                }
                if bounds.contains(where: \.isEmpty) {
                    throw error(
                        spec, String(body),
                        "\"\(TempoError.capped(body))\" is missing a value (a range needs both ends)")
                }
                low = try value(bounds[0], spec: spec)
                if bounds.count == 2 {
                    high = try value(bounds[1], spec: spec)
                    if spec.field == .dayOfWeek && high == 0 && low > 0 { high = 7 }
                    guard low <= high else {
                        throw error(
                            spec, String(body), "range \(body) runs backwards (\(low) is after \(high))")
                    }
                } else {
                    high = parts.count == 2 ? spec.range.upperBound : low
                }
            }
            var v = low
            while v <= high {
                mask |= 1 << UInt64(v)
                v += step
            }
        }
        return (mask, last)
    }

    private static func fullMask(_ spec: FieldSpec) -> UInt64 {
        var mask: UInt64 = 0
        for v in spec.range { mask |= 1 << UInt64(v) }
        return mask
    }

    /// A single value: a number in the field's range, or a name.
    private static func value(_ text: Substring, spec: FieldSpec) throws(PlanError) -> Int {
        guard !text.isEmpty else {
            throw error(spec, String(text), "missing value (a range needs both ends)")
        }
        if let n = number(text) {
            guard spec.range.contains(n) else {
                throw error(
                    spec, String(text),
                    "\(text) is out of range \(spec.range.lowerBound)-\(spec.range.upperBound)")
            }
            return n
        }
        if let index = spec.names.firstIndex(of: text.uppercased()) {
            return index + spec.nameBase
        }
        if text.allSatisfy(\.isNumber) {
            throw error(
                spec, TempoError.capped(text),
                "\(TempoError.capped(text)) is out of range \(spec.range.lowerBound)-\(spec.range.upperBound)")
        }
        let expected =
            spec.names.isEmpty
            ? "a number \(spec.range.lowerBound)-\(spec.range.upperBound)"
            : "a number \(spec.range.lowerBound)-\(spec.range.upperBound) or a name \(spec.names.first!)-\(spec.names.last!)"
        throw error(spec, TempoError.capped(text), "\"\(TempoError.capped(text))\" is not \(expected)")
    }

    /// A decimal number of at most four ASCII digits.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 4, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func error(_ spec: FieldSpec, _ text: String, _ message: String) -> PlanError {
        PlanError(.invalidCron, field: spec.field, value: TempoError.capped(text), message: message)
    }
}
