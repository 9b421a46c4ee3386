import Foundation
import Testing

@testable import TempoPlans

@Suite struct SmokeTests {
    @Test func weekdayMorningsInBerlin() throws {
        let plan = try Plan.cron("0 9 * * MON-FRI", in: Fixture.berlin)
        let dates = try Fixture.next(plan, after: "2026-03-26T12:00:00Z", count: 5, in: Fixture.berlin)
        print(dates)
        #expect(
            dates == [
                "2026-03-27T09:00:00+01:00", "2026-03-30T09:00:00+02:00", "2026-03-31T09:00:00+02:00",
                "2026-04-01T09:00:00+02:00", "2026-04-02T09:00:00+02:00",
            ])
    }
}
