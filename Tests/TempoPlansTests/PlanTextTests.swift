import Foundation
import Testing

@testable import TempoPlans

@Suite struct PlanTextTests {
    private func next(_ text: String, after start: String = "2026-01-01T00:00:00Z", count: Int = 3) throws -> [String] {
        try Fixture.next(
            Plan.parse(text, in: Fixture.utc, anchor: Fixture.date(start)), after: start, count: count, in: Fixture.utc)
    }

    @Test func weekdayAndTimeListsReadLikeEnglish() throws {
        // 2026-01-01 is a Thursday.
        #expect(
            try next("every weekday at 9:00 and 17:30", count: 4)
                == ["2026-01-01T09:00:00Z", "2026-01-01T17:30:00Z", "2026-01-02T09:00:00Z", "2026-01-02T17:30:00Z"])
        #expect(
            try next("every mon, fri at 10:30am") == [
                "2026-01-02T10:30:00Z", "2026-01-05T10:30:00Z", "2026-01-09T10:30:00Z",
            ])
        #expect(try next("on weekends at 10pm", count: 2) == ["2026-01-03T22:00:00Z", "2026-01-04T22:00:00Z"])
    }

    @Test func daysOfTheMonthTheLastDayAndMonths() throws {
        #expect(
            try next("on the last day at 18:00") == [
                "2026-01-31T18:00:00Z", "2026-02-28T18:00:00Z", "2026-03-31T18:00:00Z",
            ])
        #expect(
            try next("on day 1, 15 at 08:00 in jan, jul", count: 3) == [
                "2026-01-01T08:00:00Z", "2026-01-15T08:00:00Z", "2026-07-01T08:00:00Z",
            ])
        #expect(try next("on the 13th at 12:00", count: 2) == ["2026-01-13T12:00:00Z", "2026-02-13T12:00:00Z"])
    }

    @Test func everyIntervalIsAGridThroughTheAnchor() throws {
        #expect(try next("every 90m", count: 2) == ["2026-01-01T01:30:00Z", "2026-01-01T03:00:00Z"])
    }

    @Test func cronTextIsRecognised() throws {
        #expect(try next("0 9 * * MON", count: 1) == ["2026-01-05T09:00:00Z"])
    }

    @Test(arguments: [
        "every weekday", "every blursday at 9:00", "at 25:00", "on day 32 at 9:00", "every day at 9:00 in smarch", "",
    ])
    func textThatDoesNotParseNamesTheWord(text: String) {
        let error = #expect(throws: PlanError.self) { try Plan.parse(text, in: Fixture.utc) }
        #expect(error?.code == .invalidPlanText || error?.code == .invalidRule, "\(String(describing: error))")
    }
}
