import Foundation
import Testing

@testable import TempoPlans

@Suite struct CalendarPlanTests {
    private let utc = Fixture.utc

    @Test func weekdaysAndTimesOfDayAcrossAWeek() throws {
        let rule = CalendarRule(
            times: [TimeOfDay(hour: 10, minute: 30), TimeOfDay(hour: 8, minute: 0)], weekdays: [.monday, .friday])
        let plan = try Plan.calendar(rule, in: Fixture.berlin)
        // 2026-06-01 is a Monday.
        #expect(
            try Fixture.next(plan, after: "2026-06-01T00:00:00Z", count: 5, in: Fixture.berlin) == [
                "2026-06-01T08:00:00+02:00", "2026-06-01T10:30:00+02:00", "2026-06-05T08:00:00+02:00",
                "2026-06-05T10:30:00+02:00", "2026-06-08T08:00:00+02:00",
            ])
    }

    @Test func monthEndsTheThirtyFirstFebruaryAndTheLeapDay() throws {
        let thirtyFirst = try Plan.calendar(
            CalendarRule(times: [TimeOfDay(hour: 0, minute: 0)], daysOfMonth: [.day(31)]), in: utc)
        #expect(
            try Fixture.next(thirtyFirst, after: "2026-01-31T12:00:00Z", count: 3, in: utc)
                == ["2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z", "2026-07-31T00:00:00Z"])
        let last = try Plan.calendar(
            CalendarRule(times: [TimeOfDay(hour: 18, minute: 0)], daysOfMonth: [.last]), in: utc)
        #expect(
            try Fixture.next(last, after: "2027-12-31T19:00:00Z", count: 3, in: utc)
                == ["2028-01-31T18:00:00Z", "2028-02-29T18:00:00Z", "2028-03-31T18:00:00Z"])
        let leapDay = try Plan.calendar(
            CalendarRule(times: [TimeOfDay(hour: 12, minute: 0)], daysOfMonth: [.day(29)], months: [.february]), in: utc
        )
        #expect(
            try Fixture.next(leapDay, after: "2026-01-01T00:00:00Z", count: 3, in: utc)
                == ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z", "2036-02-29T12:00:00Z"])
        // A day that must be both the 13th and a Friday.
        let friday13 = try Plan.calendar(
            CalendarRule(times: [TimeOfDay(hour: 9, minute: 0)], weekdays: [.friday], daysOfMonth: [.day(13)]), in: utc)
        #expect(
            try Fixture.next(friday13, after: "2026-01-01T00:00:00Z", count: 2, in: utc)
                == ["2026-02-13T09:00:00Z", "2026-03-13T09:00:00Z"])
    }

    @Test func invalidRulesAreRejected() {
        let bad: [(CalendarRule, PlanError.Code)] = [
            (CalendarRule(times: []), .invalidRule),
            (CalendarRule(times: [TimeOfDay(hour: 24, minute: 0)]), .invalidRule),
            (CalendarRule(times: [TimeOfDay(hour: 9, minute: 60)]), .invalidRule),
            (CalendarRule(times: [TimeOfDay(hour: 9, minute: 0)], daysOfMonth: [.day(0)]), .invalidRule),
            (CalendarRule(times: [TimeOfDay(hour: 9, minute: 0)], weekdays: []), .invalidRule),
            (
                CalendarRule(times: [TimeOfDay(hour: 9, minute: 0)], daysOfMonth: [.day(30)], months: [.february]),
                .neverFires
            ),
        ]
        for (rule, code) in bad {
            let error = #expect(throws: PlanError.self) { try Plan.calendar(rule, in: utc) }
            #expect(error?.code == code, "\(rule)")
        }
    }

    @Test func untilAndFirstBoundAPlan() throws {
        let hourly = try Plan.cron("0 * * * *", in: utc)
        let untilThree = try hourly.until(Fixture.date("2026-01-01T03:00:00Z"))
        #expect(
            try Fixture.next(untilThree, after: "2026-01-01T00:30:00Z", count: 10, in: utc)
                == ["2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z", "2026-01-01T03:00:00Z"])
        let firstTwo = try hourly.first(2, after: Fixture.date("2026-01-01T00:30:00Z"))
        #expect(
            try Fixture.next(firstTwo, after: "2026-01-01T00:00:00Z", count: 10, in: utc)
                == ["2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"])
        #expect(
            try Fixture.next(firstTwo, after: "2026-01-01T01:00:00Z", count: 10, in: utc) == ["2026-01-01T02:00:00Z"])
        #expect(throws: PlanError.self) { try hourly.first(0) }
        #expect(
            try hourly.starting(at: Fixture.date("2026-02-01T00:00:00Z")).nextDate(
                after: Fixture.date("2026-01-01T00:00:00Z"))
                == Fixture.date("2026-02-01T00:00:00Z"))
    }

    @Test func everyIntervalUntilADateAndOffsets() throws {
        let every2h = try Plan.every(.seconds(7200), anchor: Fixture.date("2026-01-01T00:00:00Z"))
        let untilFriday = try every2h.until(Fixture.date("2026-01-02T00:00:00Z"))  // a Friday
        // 20:00, 22:00 and 00:00: `until` includes its date.
        #expect(try untilFriday.nextDates(after: Fixture.date("2026-01-01T19:00:00Z"), count: 5).count == 3)
        let before = try Plan.cron("0 10 * * *", in: utc).offset(by: .seconds(-600))
        #expect(try Fixture.next(before, after: "2026-01-01T00:00:00Z", count: 1, in: utc) == ["2026-01-01T09:50:00Z"])
        for interval in [Duration.zero, .seconds(-1), .nanoseconds(1) / 2] {
            #expect(throws: PlanError.self) { try Plan.every(interval) }
        }
    }

    @Test func fixedDatesUnionAndIntersection() throws {
        let dates = try Plan.dates([
            Fixture.date("2026-05-01T12:00:00Z"), Fixture.date("2026-04-01T12:00:00Z"),
            Fixture.date("2026-04-01T12:00:00Z"),
        ])
        let noon = try Plan.cron("0 12 1 * *", in: utc)
        #expect(
            try Fixture.next(dates.union(noon), after: "2026-03-15T00:00:00Z", count: 3, in: utc)
                == ["2026-04-01T12:00:00Z", "2026-05-01T12:00:00Z", "2026-06-01T12:00:00Z"])
        let quarterHours = try Plan.every(.seconds(900), anchor: Fixture.date("2026-01-01T00:00:00Z"))
        let mornings = try Plan.cron("* 9-10 * * MON-FRI", in: utc)
        #expect(
            try Fixture.next(quarterHours.intersection(mornings), after: "2026-01-02T10:40:00Z", count: 3, in: utc)
                == ["2026-01-02T10:45:00Z", "2026-01-05T09:00:00Z", "2026-01-05T09:15:00Z"])
        // Two grids that never meet end instead of spinning.
        let shifted = try Plan.every(.seconds(7200), anchor: Fixture.date("2026-01-01T01:00:00Z"))
        let even = try Plan.every(.seconds(7200), anchor: Fixture.date("2026-01-01T00:00:00Z"))
        #expect(try even.intersection(shifted).nextDates(after: Fixture.date("2026-01-01T00:00:00Z"), count: 1).isEmpty)
        #expect(throws: PlanError.self) { try Plan.dates([Date(timeIntervalSince1970: .nan)]) }
        #expect(throws: PlanError.self) { try noon.nextDates(after: Date(), count: 0) }
    }

    @Test func datesSequenceIsLazyAndEnds() throws {
        let plan = try Plan.dates([Fixture.date("2026-04-01T12:00:00Z"), Fixture.date("2026-05-01T12:00:00Z")])
        #expect(Array(try plan.dates(after: Fixture.date("2026-01-01T00:00:00Z"))).count == 2)
        let cron = try Plan.cron("* * * * * *", in: utc)
        #expect(Array(try cron.dates(after: Fixture.date("2026-01-01T00:00:00Z")).prefix(3)).count == 3)
    }
}
