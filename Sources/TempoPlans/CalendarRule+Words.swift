extension CalendarRule {
    /// The rule's days and months in words, for errors: `day 31 in september`.
    var summary: String {
        var parts: [String] = []
        if let weekdays {
            parts.append(weekdays.sorted { $0.rawValue < $1.rawValue }.map(\.name).joined(separator: ", "))
        }
        if let daysOfMonth { parts.append(Self.words(daysOfMonth)) }
        if let months { parts.append("in " + Self.words(months)) }
        parts.append("at " + times.sorted().map(\.description).joined(separator: ", "))
        return parts.joined(separator: " ")
    }

    /// Why a rule that ``CalendarMatcher/canFire`` rejected never fires: `september has no day 31`.
    var neverFiresReason: String {
        let days = daysOfMonth.map(Self.words) ?? "any of its days"
        guard let months else { return "no month has \(days)" }
        return "\(Self.words(months)) \(months.count == 1 ? "has" : "have") no \(days)"
    }

    private static func words(_ days: Set<MonthDay>) -> String {
        let numbers = days.compactMap { if case .day(let n) = $0.kind { n } else { nil } }.sorted()
        var words = numbers.isEmpty ? [] : ["day " + numbers.map(String.init).joined(separator: ", ")]
        if days.contains(.last) { words.append("last day") }
        return words.joined(separator: " or ")
    }

    private static func words(_ months: Set<Month>) -> String {
        months.sorted { $0.rawValue < $1.rawValue }.map(\.name).joined(separator: ", ")
    }
}

extension Weekday {
    /// The English name in lower case: `monday`.
    var name: String {
        ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"][rawValue]
    }
}

extension Month {
    /// The English name in lower case: `september`.
    var name: String {
        [
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december",
        ][rawValue - 1]
    }
}
