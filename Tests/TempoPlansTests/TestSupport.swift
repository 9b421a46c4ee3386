import Foundation
import Testing

@testable import TempoPlans

/// Test helpers: dates from ISO 8601 text and zones by name.
enum Fixture {
    static let berlin = TimeZone(identifier: "Europe/Berlin")!
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let lordHowe = TimeZone(identifier: "Australia/Lord_Howe")!
    static let apia = TimeZone(identifier: "Pacific/Apia")!
    static let utc = TimeZone(identifier: "UTC")!

    /// A date from `2026-03-29T01:30:00Z` or `2026-03-29T01:30:00+01:00`.
    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: text) else { fatalError("bad fixture date \(text)") }
        return date
    }

    /// `date` as ISO 8601 in `zone`, with its offset: `2026-03-29T03:00:00+02:00`.
    static func text(_ date: Date, in zone: TimeZone) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = zone
        return formatter.string(from: date)
    }

    /// The next `count` dates of `plan` after `start`, as ISO 8601 text in `zone`.
    static func next(_ plan: Plan, after start: String, count: Int, in zone: TimeZone) throws -> [String] {
        try plan.nextDates(after: date(start), count: count).map { text($0, in: zone) }
    }
}
