import Foundation
import Testing

@testable import TempoPlans

@Suite struct CronParserTests {
    /// The next dates of `cron` in UTC after `start`, as ISO text.
    private func next(_ cron: String, after start: String = "2026-01-01T00:00:00Z", count: Int = 4) throws -> [String] {
        try Fixture.next(Plan.cron(cron, in: Fixture.utc), after: start, count: count, in: Fixture.utc)
    }

    @Test func stepsRangesAndListsCombine() throws {
        #expect(
            try next("*/20 1-2 * * *")
                == ["2026-01-01T01:00:00Z", "2026-01-01T01:20:00Z", "2026-01-01T01:40:00Z", "2026-01-01T02:00:00Z"])
        #expect(
            try next("5,10-12/2 3 * * *")
                == ["2026-01-01T03:05:00Z", "2026-01-01T03:10:00Z", "2026-01-01T03:12:00Z", "2026-01-02T03:05:00Z"])
        // `a/n` runs from a to the field's maximum.
        #expect(
            try next("50/5 0 * * *", count: 3) == [
                "2026-01-01T00:50:00Z", "2026-01-01T00:55:00Z", "2026-01-02T00:50:00Z",
            ])
    }

    @Test func namesOfMonthsAndWeekdaysInAnyCaseAndInRanges() throws {
        // 2026-01-01 is a Thursday.
        #expect(
            try next("0 8 * * mon-WED", count: 3) == [
                "2026-01-05T08:00:00Z", "2026-01-06T08:00:00Z", "2026-01-07T08:00:00Z",
            ])
        #expect(
            try next("0 0 1 FEB,aug *", count: 3) == [
                "2026-02-01T00:00:00Z", "2026-08-01T00:00:00Z", "2027-02-01T00:00:00Z",
            ])
        // FRI-SUN runs Friday to Sunday; 7 is Sunday too.
        #expect(
            try next("0 0 * * FRI-SUN", count: 3) == [
                "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z",
            ])
        #expect(try next("0 0 * * 7", count: 1) == ["2026-01-04T00:00:00Z"])
    }

    @Test func sixFieldsPutSecondsFirst() throws {
        #expect(
            try next("*/15 0 0 * * *")
                == ["2026-01-01T00:00:15Z", "2026-01-01T00:00:30Z", "2026-01-01T00:00:45Z", "2026-01-02T00:00:00Z"])
    }

    @Test(arguments: [
        ("@yearly", "2027-01-01T00:00:00Z"), ("@annually", "2027-01-01T00:00:00Z"),
        ("@monthly", "2026-02-01T00:00:00Z"),
        ("@weekly", "2026-01-04T00:00:00Z"), ("@daily", "2026-01-02T00:00:00Z"), ("@midnight", "2026-01-02T00:00:00Z"),
        ("@hourly", "2026-01-01T01:00:00Z"),
    ])
    func macrosExpandLikeCron(macro: String, first: String) throws {
        #expect(try next(macro, count: 1) == [first])
    }

    @Test func restrictedDayFieldsMatchEitherAndAStarMakesThemMatchBoth() throws {
        // "30 4 1,15 * 5": the 1st and 15th, plus every Friday (crontab(5)).
        #expect(
            try next("30 4 1,15 * 5", count: 4)
                == ["2026-01-01T04:30:00Z", "2026-01-02T04:30:00Z", "2026-01-09T04:30:00Z", "2026-01-15T04:30:00Z"])
        // A field that contains `*` makes the day match both (Vixie cron, cronie): odd days that are Fridays.
        #expect(try next("0 0 */2 * FRI", count: 2) == ["2026-01-09T00:00:00Z", "2026-01-23T00:00:00Z"])
    }

    @Test func lastDayOfTheMonthAndQuestionMarkAreAccepted() throws {
        #expect(
            try next("0 12 L * ?", count: 3) == [
                "2026-01-31T12:00:00Z", "2026-02-28T12:00:00Z", "2026-03-31T12:00:00Z",
            ])
    }

    @Test func impossibleDatesAreRejectedAsNeverFiring() throws {
        for text in ["0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 30,31 FEB *"] {
            let error = #expect(throws: PlanError.self) { try Plan.cron(text, in: Fixture.utc) }
            #expect(error?.code == .neverFires, "\(text)")
            #expect(error?.description.contains(text) == true)
        }
        // The 29th of February fires in leap years only, and is found however far ahead.
        #expect(try next("0 0 29 2 *", count: 2) == ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"])
    }

    /// Malformed text for every field, with the field and the text the error must name.
    static let badFields: [(text: String, field: CronField, named: String)] = [
        ("60 * * * *", .minute, "60"), ("-1 * * * *", .minute, "-1"), ("x * * * *", .minute, "x"),
        ("*/0 * * * *", .minute, "0"), ("*/61 * * * *", .minute, "61"), ("1-2-3 * * * *", .minute, "1-2-3"),
        ("5-1 * * * *", .minute, "5-1"), ("1,,2 * * * *", .minute, "1,,2"), ("1/2/3 * * * *", .minute, "1/2/3"),
        ("99999999999 * * * *", .minute, "99999999999"), ("L * * * *", .minute, "L"),
        ("0 24 * * *", .hour, "24"), ("0 MON * * *", .hour, "MON"), ("0 ? * * *", .hour, "?"),
        ("0 0 0 * *", .dayOfMonth, "0"), ("0 0 32 * *", .dayOfMonth, "32"), ("0 0 1- * *", .dayOfMonth, "1-"),
        ("0 0 * 0 *", .month, "0"), ("0 0 * 13 *", .month, "13"), ("0 0 * FOO *", .month, "FOO"),
        ("0 0 * JAN-FOO *", .month, "FOO"),
        ("0 0 * * 8", .dayOfWeek, "8"), ("0 0 * * SUNDAY", .dayOfWeek, "SUNDAY"), ("0 0 * * */9", .dayOfWeek, "9"),
        ("60 0 0 * * *", .second, "60"), ("x 0 0 * * *", .second, "x"),
        ("* * * *", .expression, "* * * *"), ("* * * * * * *", .expression, "* * * * * * *"), ("", .expression, ""),
        ("@reboot", .expression, "@reboot"), ("@fortnightly", .expression, "@fortnightly"),
    ]

    @Test(arguments: badFields)
    func malformedFieldsThrowErrorsNamingFieldAndText(text: String, field: CronField, named: String) {
        let error = #expect(throws: PlanError.self) { try Plan.cron(text, in: Fixture.utc) }
        #expect(error?.code == .invalidCron)
        #expect(error?.field == field, "\(text): \(String(describing: error))")
        #expect(
            named.isEmpty ? error?.value == "" : error?.value.contains(named) == true, "\(String(describing: error))")
        #expect(error?.description.contains(field.description) == true)
    }

    @Test func aHugeTextIsCappedInTheError() {
        let text = String(repeating: "1,", count: 100_000) + "1 * * * *"
        let error = #expect(throws: PlanError.self) { try Plan.cron(text + " * *", in: Fixture.utc) }
        #expect((error?.message.count ?? .max) < 400)
    }

    @Test func unknownTimeZonesAreRejectedByName() {
        for name in ["Mars/Olympus", "", "Europe/Berlinn"] {
            let error = #expect(throws: PlanError.self) { try Plan.timeZone(identifier: name) }
            #expect(error?.code == .unknownTimeZone)
            #expect(error?.value == name)
        }
    }
}
