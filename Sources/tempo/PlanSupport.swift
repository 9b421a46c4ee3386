import Foundation
import TempoPlans

/// A plan error in the user's words: the cron field when there is one, then the message, which names the text
/// (never the internal code name, such as `invalidCron`).
func planErrorText(_ error: PlanError) -> String {
    (error.field.map { "\($0): " } ?? "") + error.message
}

/// Formats dates as `tempo next` and `tempo every --cron` print them, in `zone` with its UTC offset:
/// `Mon 2026-03-30 09:00:00 +02:00`.
func planDateFormatter(in zone: TimeZone) -> DateFormatter {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = zone
    formatter.dateFormat = "EEE yyyy-MM-dd HH:mm:ss xxx"
    return formatter
}

/// Parses cron text or plan text (see `Plan.parse`) in the zone named by `tz` (default: the current zone).
///
/// - Throws: `PlanError` naming the bad text or zone.
func parsePlan(_ text: String, tz: String?, anchor: Date) throws(PlanError) -> (Plan, TimeZone) {
    let zone = try tz.map { name throws(PlanError) in try Plan.timeZone(identifier: name) } ?? TimeZone.current
    return (try Plan.parse(text, in: zone, anchor: anchor), zone)
}
