import Foundation
import Testing

@testable import TempoPlans

/// Plans at the edges (issue #26): digits that are not ASCII, `Date`'s resolution, nested composition and never-firing
/// plan text.
@Suite struct PlanEdgeTests {
    @Test(arguments: [
        "every day at 9:٣٠", "every day at ２:00", "every day at ½:00", "on day ３ at 9:00", "on the ٣rd at 9:00",
        "every day at ²pm", "every ２h", "every day at Ⅻ:00",
    ])
    func planTextWithNonASCIIDigitsIsRejectedNamingTheWord(text: String) throws {
        let error = try #require(throws: PlanError.self) { try Plan.parse(text, in: Fixture.utc) }
        #expect(error.code == .invalidPlanText, "\(error)")
        #expect(error.message.contains("not an ASCII number"), "\(error)")
        #expect(text.lowercased().contains(error.value), "\(error) names \(error.value)")
    }

    @Test(arguments: ["٣ * * * *", "0 ２ * * *", "*/٣ * * * *", "0 9 1-٣ * *", "0 0 ½ * *"])
    func cronTextWithNonASCIIDigitsSaysSo(text: String) throws {
        let error = try #require(throws: PlanError.self) { try Plan.parse(text, in: Fixture.utc) }
        #expect(error.code == .invalidCron, "\(error)")
        #expect(error.message.contains("not an ASCII number"), "\(error)")
    }

    @Test func neverFiringPlanTextIsReportedInTheUsersWords() throws {
        let error = try #require(throws: PlanError.self) {
            try Plan.parse("on the 31st at 9:00 in sept", in: Fixture.utc)
        }
        #expect(error.code == .neverFires)
        #expect(error.value == "on the 31st at 9:00 in sept")
        #expect(error.message.contains("september has no day 31"), "\(error.message)")
        #expect(!error.message.contains("CalendarRule") && !error.message.contains("Optional"), "\(error.message)")
        let rule = CalendarRule(
            times: [TimeOfDay(hour: 9, minute: 0)], daysOfMonth: [.day(30), .day(31)], months: [.february])
        let ruleError = try #require(throws: PlanError.self) { try Plan.calendar(rule, in: Fixture.utc) }
        #expect(ruleError.value == "day 30, 31 in february at 09:00", "\(ruleError)")
        #expect(ruleError.message.contains("february has no day 30, 31"), "\(ruleError.message)")
    }

    /// The issue's example: a grid of a third of a second returned the date it was given.
    @Test func nextDateIsStrictlyLaterThanItsArgumentOnSubSecondGrids() throws {
        let anchor = Date(timeIntervalSince1970: 1_767_225_600)
        let plan = try Plan.every(.nanoseconds(333_333_333), anchor: anchor)
        let x = try #require(try plan.nextDate(after: anchor))
        #expect(try #require(try plan.nextDate(after: x)) > x)
        for interval: Duration in [.milliseconds(100), .nanoseconds(333_333_333), .microseconds(1), .nanoseconds(7)] {
            let grid = try Plan.every(interval, anchor: anchor)
            var cursor = anchor
            for step in 0..<10_000 {
                let next = try #require(try grid.nextDate(after: cursor), "\(interval), step \(step)")
                guard next > cursor else {
                    Issue.record("every \(interval): step \(step) returned \(next), not after \(cursor)")
                    break
                }
                cursor = next
            }
        }
    }

    @Test func nextDatesNeverRepeatADate() throws {
        let anchor = Date(timeIntervalSince1970: 1_767_225_600.123)
        for interval: Duration in [.nanoseconds(1), .nanoseconds(100), .nanoseconds(333_333_333)] {
            let plan = try Plan.every(interval, anchor: anchor)
            let dates = try plan.nextDates(after: anchor, count: 1_000)
            #expect(dates.count == 1_000)
            #expect(dates.first.map { $0 > anchor } ?? false)
            #expect(zip(dates, dates.dropFirst()).allSatisfy { $0 < $1 }, "every \(interval)")
            let lazy = Array(try plan.dates(after: anchor).prefix(1_000))
            #expect(lazy == dates, "every \(interval)")
        }
    }

    /// The issue's example ran for about 48 minutes: each level of intersection had a budget of its own.
    @Test func nestedIntersectionsShareOneStepBudget() throws {
        let utc = Fixture.utc
        let never = try Plan.cron("11 9 * * *", in: utc).intersection(try Plan.cron("38 9 * * *", in: utc))
        let plan = try Plan.cron("0 18 * * *", in: utc).intersection(
            never.union(try Plan.cron("0 12 * * *", in: utc)))
        var budget = StepBudget()
        let start = try PlanInstant.nanoseconds(Fixture.date("2026-01-01T00:00:00Z"))
        #expect(plan.node.next(after: start, budget: &budget) == nil)
        #expect(budget.isExhausted)
        #expect(budget.used == PlanNode.stepLimit)
        #expect(try plan.nextDates(after: Fixture.date("2026-01-01T00:00:00Z"), count: 8).isEmpty)
    }

    /// A plan whose dates are found keeps answering after an exhausted part: a union must not answer from its other
    /// parts once the budget ran out, or it would skip the exhausted part's earlier dates.
    @Test func anExhaustedSearchAnswersNilNotALaterDate() throws {
        let utc = Fixture.utc
        let slow = try Plan.every(.nanoseconds(1_001), anchor: Date(timeIntervalSince1970: 0)).intersection(
            try Plan.every(.nanoseconds(999), anchor: Date(timeIntervalSince1970: 0)))
        let plan = slow.union(try Plan.cron("0 12 * * *", in: utc))
        let node = plan.node
        var tight = StepBudget(limit: 50)
        #expect(node.next(after: 1, budget: &tight) == nil)
        var enough = StepBudget()
        #expect(node.next(after: 1, budget: &enough) == 999_999)
    }
}
