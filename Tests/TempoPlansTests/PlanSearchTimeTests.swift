import Foundation
import TempoPlans
import Testing

@testable import TempoPlans

/// Issue #26 asks that `nextDates` of any plan built from at most 10 parts returns within 1 s. A test must not assume
/// a quiet machine, so the bound checked here is the deterministic one, steps; the time is printed for the record
/// (`swift test --filter PlanSearchTimeTests`), never asserted.
@Suite struct PlanSearchTimeTests {
    /// Ten-part plans built to make the search work hardest: intersections that never meet, nested in unions, over
    /// the per-second and calendar plans whose steps cost the most.
    static func adversarialPlans() throws -> [(String, Plan)] {
        let utc = Fixture.utc
        let berlin = Fixture.berlin
        func cron(_ text: String, _ zone: TimeZone = utc) throws -> Plan { try Plan.cron(text, in: zone) }
        // 1. Five daily plans intersected with five others at other minutes: they never meet.
        let left = Plan.union(try (0..<5).map { try cron("\($0 * 7) 9 * * *", berlin) })
        let right = Plan.union(try (0..<5).map { try cron("\($0 * 7 + 3) 9 * * *", berlin) })
        // 2. The example grown to ten parts: an intersection whose operand holds an intersection that never
        //    meets, nested four deep.
        var nested = try cron("11 9 * * *").intersection(try cron("38 9 * * *"))
        for hour in [12, 13, 14, 15] {
            nested = try cron("0 18 * * *").intersection(nested.union(try cron("0 \(hour) * * *")))
        }
        // 3. Per-second cron against a sub-second grid that meets it only every 1,001 seconds, and a monthly rule.
        let seconds = try cron("* * * * * *")
        let grid = try Plan.every(.nanoseconds(1_001_000_000), anchor: Date(timeIntervalSince1970: 0))
        let mixed = seconds.intersection(grid).intersection(try cron("0 0 29 2 *").union(try cron("0 0 31 12 *")))
            .union(try cron("0 0 1 1 *").intersection(try cron("0 0 2 1 *")))
            .union(try cron("*/5 * * * * *").intersection(try cron("1-4 * * * * *")))
        // 4. Dates that are found, each near the end of its budget: a per-second cron meets a grid of 1.0002 s
        //    once every 5,000 s, so each of the 8 dates costs thousands of steps.
        let nearBudget = try cron("* * * * * *").intersection(
            try Plan.every(.nanoseconds(1_000_200_000), anchor: Date(timeIntervalSince1970: 0)))
        return [
            ("ten calendar plans that never meet", left.intersection(right)), ("nested intersections", nested),
            ("per-second grid", mixed), ("dates near the budget", nearBudget),
        ]
    }

    @Test func tenPartPlansEndEachSearchWithinTheStepBudget() throws {
        let start = Fixture.date("2026-01-01T00:00:00Z")
        for (name, plan) in try Self.adversarialPlans() {
            var budget = StepBudget()
            _ = plan.node.next(after: try PlanInstant.nanoseconds(start), budget: &budget)
            #expect(budget.used <= PlanNode.stepLimit, "\(name)")
            let clock = ContinuousClock()
            var dates: [Date] = []
            let elapsed = try clock.measure { dates = try plan.nextDates(after: start, count: 8) }
            print("plan search (\(name)): \(dates.count) dates, \(budget.used) steps for the first, \(elapsed) for 8")
        }
    }
}
