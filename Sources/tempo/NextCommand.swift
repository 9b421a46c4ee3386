import ArgumentParser
import Foundation
import TempoPlans

/// `tempo next`: prints the upcoming dates of cron text or plan text.
struct NextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: "Print the upcoming dates of a cron expression or plan.",
        usage: "tempo next \"<cron or plan text>\" [--count <n>] [--tz <zone>] [--after <date>]",
        discussion: """
            Cron text has 5 fields (minute hour day-of-month month day-of-week), 6 with seconds first, or is a \
            macro like @daily. Plan text is for example "every weekday at 09:00" or "every 2h". Dates are \
            computed in --tz (default: the current zone), with cron's rules for local times that a \
            daylight-saving change skips or repeats, and printed in that zone with their UTC offset.
            """
    )

    @Argument(help: "Cron text (\"0 9 * * MON-FRI\", \"@daily\") or plan text (\"every weekday at 09:00\").")
    var plan: String

    @Option(name: .long, help: "How many dates to print.")
    var count: Int = 5

    @Option(name: .long, help: "The time zone, like Europe/Berlin (default: the current zone).")
    var tz: String?

    @Option(name: .long, help: "Print dates after this ISO 8601 date, like 2026-03-28T12:00:00Z (default: now).")
    var after: String?

    mutating func validate() throws {
        try validateCount(count, option: "--count")
        _ = try parsed()
    }

    func run() throws {
        let (plan, zone, start) = try parsed()
        let dates = try plan.nextDates(after: start, count: count)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "EEE yyyy-MM-dd HH:mm:ss xxx"
        for date in dates {
            print(formatter.string(from: date))
        }
        if dates.count < count {
            printError("tempo next: the plan has no more dates after \(dates.count)")
        }
    }

    /// The plan, its zone and the start date, or a usage error that names the bad value.
    private func parsed() throws -> (Plan, TimeZone, Date) {
        do {
            let zone = try tz.map { try Plan.timeZone(identifier: $0) } ?? TimeZone.current
            var start = Date()
            if let after {
                let formatter = ISO8601DateFormatter()
                guard let date = formatter.date(from: after) else {
                    throw ValidationError("--after: '\(after)' is not an ISO 8601 date like 2026-03-28T12:00:00Z")
                }
                start = date
            }
            return (try Plan.parse(plan, in: zone, anchor: start), zone, start)
        } catch let error as PlanError {
            throw ValidationError("'\(error.text)': \(error.description)")
        }
    }
}
