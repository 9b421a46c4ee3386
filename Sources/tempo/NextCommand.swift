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

    @Option(name: .long, parsing: .unconditional, help: "How many dates to print.")
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
        let dates: [Date]
        do {
            dates = try plan.nextDates(after: start, count: count)
        } catch {
            // A date the plans cannot represent, such as `--after 9999-12-31T00:00:00Z`: bad input, not a failure.
            throw usageError((after.map { "--after '\($0)': " } ?? "") + planErrorText(error))
        }
        let formatter = planDateFormatter(in: zone)
        for date in dates {
            output(formatter.string(from: date))
        }
        if dates.count < count {
            printError("tempo next: the plan has no more dates after \(dates.count)")
        }
    }

    /// The plan, its zone and the start date, or a usage error that names the bad value.
    private func parsed() throws -> (Plan, TimeZone, Date) {
        do {
            var start = Date()
            if let after {
                let formatter = ISO8601DateFormatter()
                guard let date = formatter.date(from: after) else {
                    throw ValidationError("--after: '\(after)' is not an ISO 8601 date like 2026-03-28T12:00:00Z")
                }
                start = date
            }
            let (parsed, zone) = try parsePlan(plan, tz: tz, anchor: start)
            return (parsed, zone, start)
        } catch let error as PlanError {
            throw ValidationError(planErrorText(error))
        }
    }
}
