import Foundation
import Testing

@testable import TempoPlans

/// The examples of the "Calendar plans" article, run with their stated results.
@Suite struct DocumentationExampleTests {
    let monday = Fixture.date("2026-03-23T00:00:00Z")
    let friday = Fixture.date("2026-03-27T12:00:00Z")
    let saturdayInMarch = Fixture.date("2026-03-28T12:00:00Z")
    let saturdayInOctober = Fixture.date("2026-10-24T12:00:00Z")
    let christmas = Fixture.date("2026-12-25T09:00:00+01:00")
    let newYear = Fixture.date("2027-01-01T09:00:00+01:00")

    private func text(_ dates: [Date], in zone: TimeZone = Fixture.berlin) -> [String] {
        dates.map { Fixture.text($0, in: zone) }
    }

    @Test func weekdayMornings() throws {
        let berlin = try Plan.timeZone(identifier: "Europe/Berlin")
        let reports = try Plan.cron("0 9 * * MON-FRI", in: berlin)
        let dates = try reports.nextDates(after: friday, count: 2)
        #expect(text(dates) == ["2026-03-30T09:00:00+02:00", "2026-03-31T09:00:00+02:00"])

        let rule = CalendarRule(times: [TimeOfDay(hour: 9, minute: 0)], weekdays: Weekday.workdays)
        let sameReports = try Plan.calendar(rule, in: berlin)
        let fromText = try Plan.parse("every weekday at 09:00", in: berlin)
        #expect(try sameReports.nextDates(after: friday, count: 10) == reports.nextDates(after: friday, count: 10))
        #expect(try fromText.nextDates(after: friday, count: 10) == reports.nextDates(after: friday, count: 10))
    }

    @Test func composingPlans() throws {
        let berlin = try Plan.timeZone(identifier: "Europe/Berlin")
        let reports = try Plan.cron("0 9 * * MON-FRI", in: berlin)
        let everyTwoHours = try Plan.every(.seconds(7200), anchor: monday)
        let untilFriday = try everyTwoHours.until(friday)
        let firstFive = try everyTwoHours.first(5, after: monday)
        let reminders = try reports.offset(by: .seconds(-600))
        let holidays = try Plan.dates([christmas, newYear])
        let either = reports.union(holidays)

        #expect(try untilFriday.nextDates(after: friday - 3 * 3600, count: 5).count == 2)  // 10:00 and 12:00 UTC
        #expect(
            text(try firstFive.nextDates(after: monday - 1, count: 10), in: Fixture.utc) == [
                "2026-03-23T02:00:00Z", "2026-03-23T04:00:00Z", "2026-03-23T06:00:00Z", "2026-03-23T08:00:00Z",
                "2026-03-23T10:00:00Z",
            ])
        #expect(text(try reminders.nextDates(after: friday, count: 1)) == ["2026-03-30T08:50:00+02:00"])
        #expect(
            text(try either.nextDates(after: Fixture.date("2026-12-24T12:00:00Z"), count: 3))
                == ["2026-12-25T09:00:00+01:00", "2026-12-28T09:00:00+01:00", "2026-12-29T09:00:00+01:00"])
    }

    @Test func daylightSavingRules() throws {
        let berlin = try Plan.timeZone(identifier: "Europe/Berlin")
        let backup = try Plan.cron("30 2 * * *", in: berlin)
        #expect(text(try backup.nextDates(after: saturdayInMarch, count: 1)) == ["2026-03-29T03:00:00+02:00"])
        #expect(text(try backup.nextDates(after: saturdayInOctober, count: 1)) == ["2026-10-25T02:30:00+02:00"])
        let twice = try Plan.cron("30 2 * * *", in: berlin, localTimes: LocalTimePolicy(repeated: .both))
        #expect(
            text(try twice.nextDates(after: saturdayInOctober, count: 2))
                == ["2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00"])
    }

    @Test func errorsNameTheFieldAndTheText() {
        let error = #expect(throws: PlanError.self) { try Plan.cron("0 0 32 * *") }
        #expect(error?.description == "invalidCron: day of month: 32 is out of range 1-31")
        #expect(throws: PlanError.self) { try Plan.cron("0 0 30 2 *") }
    }
}
