import Foundation
import Testing

@testable import TempoPlans

/// Planned local times around daylight-saving and other offset changes: each exists, is skipped or repeats
/// exactly as the ``LocalTimePolicy`` table documents.
@Suite struct DaylightSavingTests {
    private func next(
        _ cron: String, in zone: TimeZone, after start: String, count: Int,
        policy: LocalTimePolicy = .cron
    ) throws -> [String] {
        try Fixture.next(Plan.cron(cron, in: zone, localTimes: policy), after: start, count: count, in: zone)
    }

    // MARK: Europe/Berlin: 02:00 → 03:00 on the last Sunday of March, 03:00 → 02:00 on the last Sunday of October.

    @Test(arguments: [("2026-03-28T12:00:00Z", "2026-03-29"), ("2027-03-27T12:00:00Z", "2027-03-28")])
    func berlinSkippedTimeRunsAtTheChangeByDefault(start: String, day: String) throws {
        #expect(
            try next("30 2 * * *", in: Fixture.berlin, after: start, count: 2)
                == ["\(day)T03:00:00+02:00", "\(day.dropLast(2))\(Int(day.suffix(2))! + 1)T02:30:00+02:00"])
        #expect(
            try next("30 2 * * *", in: Fixture.berlin, after: start, count: 1, policy: .init(skipped: .skip))
                == ["\(day.dropLast(2))\(Int(day.suffix(2))! + 1)T02:30:00+02:00"])
    }

    @Test(arguments: [("2026-10-24T12:00:00Z", "2026-10-25"), ("2027-10-30T12:00:00Z", "2027-10-31")])
    func berlinRepeatedTimeRunsOnceByDefaultOrTwice(start: String, day: String) throws {
        #expect(try next("30 2 * * *", in: Fixture.berlin, after: start, count: 1) == ["\(day)T02:30:00+02:00"])
        #expect(
            try next("30 2 * * *", in: Fixture.berlin, after: start, count: 2, policy: .init(repeated: .both))
                == ["\(day)T02:30:00+02:00", "\(day)T02:30:00+01:00"])
        // Asked from between the two occurrences, `once` does not serve the second.
        let between = "\(day)T01:10:00Z"  // 02:10 CET, the second pass
        #expect(try next("30 2 * * *", in: Fixture.berlin, after: between, count: 1).first?.hasPrefix(day) == false)
    }

    @Test func berlinHourlyPlansFollowRealTimeAcrossBothChanges() throws {
        // Spring: 02:00 does not exist, so an hourly plan goes from 01:00 to 03:00, one real hour apart.
        #expect(
            try next("0 * * * *", in: Fixture.berlin, after: "2026-03-28T23:30:00Z", count: 3)
                == ["2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00"])
        // Autumn: 02:00 happens twice, and an hourly plan runs every real hour.
        #expect(
            try next("0 * * * *", in: Fixture.berlin, after: "2026-10-24T23:30:00Z", count: 3)
                == ["2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T03:00:00+01:00"])
        // Explicit policies override cron's rule for wildcard plans too.
        #expect(
            try next(
                "0 * * * *", in: Fixture.berlin, after: "2026-10-24T23:30:00Z", count: 2,
                policy: .init(repeated: .once))
                == ["2026-10-25T02:00:00+02:00", "2026-10-25T03:00:00+01:00"])
    }

    @Test func severalPlannedTimesInOneGapYieldOneDate() throws {
        #expect(
            try next("0,15,30,45 2 * * *", in: Fixture.berlin, after: "2026-03-28T12:00:00Z", count: 2)
                == ["2026-03-29T03:00:00+02:00", "2026-03-30T02:00:00+02:00"])
    }

    // MARK: America/New_York: 02:00 → 03:00 on the second Sunday of March, 02:00 → 01:00 on the first Sunday of November.

    @Test(arguments: [
        (
            before: "2026-03-07", spring: "2026-03-08", autumnBefore: "2026-10-31", autumn: "2026-11-01",
            after: "2026-11-02"
        ),
        (
            before: "2027-03-13", spring: "2027-03-14", autumnBefore: "2027-11-06", autumn: "2027-11-07",
            after: "2027-11-08"
        ),
    ])
    func newYorkChangesOf2026And2027(
        before: String, spring: String, autumnBefore: String, autumn: String, after: String
    )
        throws
    {
        #expect(
            try next("30 2 * * *", in: Fixture.newYork, after: "\(before)T12:00:00Z", count: 1) == [
                "\(spring)T03:00:00-04:00"
            ])
        #expect(
            try next("30 1 * * *", in: Fixture.newYork, after: "\(autumnBefore)T12:00:00Z", count: 2)
                == ["\(autumn)T01:30:00-04:00", "\(after)T01:30:00-05:00"])
        #expect(
            try next(
                "30 1 * * *", in: Fixture.newYork, after: "\(autumnBefore)T12:00:00Z", count: 2,
                policy: .init(repeated: .both))
                == ["\(autumn)T01:30:00-04:00", "\(autumn)T01:30:00-05:00"])
        // 09:00 exists every day, at an offset that follows the change.
        #expect(
            try next("0 9 * * *", in: Fixture.newYork, after: "\(before)T00:00:00Z", count: 2)
                == ["\(before)T09:00:00-05:00", "\(spring)T09:00:00-04:00"])
    }

    // MARK: Australia/Lord_Howe: a 30-minute change (+10:30 ↔ +11:00).

    @Test func lordHoweThirtyMinuteChanges() throws {
        // 2026-10-04: 02:00 → 02:30; 02:15 is skipped.
        #expect(
            try next("15 2 * * *", in: Fixture.lordHowe, after: "2026-10-03T00:00:00Z", count: 2)
                == ["2026-10-04T02:30:00+11:00", "2026-10-05T02:15:00+11:00"])
        #expect(
            try next(
                "15 2 * * *", in: Fixture.lordHowe, after: "2026-10-03T00:00:00Z", count: 1,
                policy: .init(skipped: .skip))
                == ["2026-10-05T02:15:00+11:00"])
        // 2026-04-05: 02:00 → 01:30; 01:45 happens twice.
        #expect(
            try next(
                "45 1 * * *", in: Fixture.lordHowe, after: "2026-04-04T00:00:00Z", count: 2,
                policy: .init(repeated: .both))
                == ["2026-04-05T01:45:00+11:00", "2026-04-05T01:45:00+10:30"])
        #expect(
            try next("45 1 * * *", in: Fixture.lordHowe, after: "2026-04-04T00:00:00Z", count: 2)
                == ["2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"])
    }

    // MARK: Pacific/Apia: 2011-12-30 did not exist (UTC-10 → UTC+14 at the end of the 29th).

    @Test func apiaSkippedAWholeDayIn2011() throws {
        #expect(
            try next("0 9 * * *", in: Fixture.apia, after: "2011-12-29T00:00:00Z", count: 3)
                == ["2011-12-29T09:00:00-10:00", "2011-12-31T00:00:00+14:00", "2011-12-31T09:00:00+14:00"])
        #expect(
            try next(
                "0 9 * * *", in: Fixture.apia, after: "2011-12-29T00:00:00Z", count: 2,
                policy: .init(skipped: .skip))
                == ["2011-12-29T09:00:00-10:00", "2011-12-31T09:00:00+14:00"])
        // A plan for the 30th only finds the next 30th that exists.
        #expect(
            try next(
                "0 9 30 12 *", in: Fixture.apia, after: "2011-12-01T00:00:00Z", count: 1,
                policy: .init(skipped: .skip))
                == ["2012-12-30T09:00:00+14:00"])
    }

    @Test func calendarRulesInADayThatHasNoMidnight() throws {
        // America/Santiago moves 24:00 → 01:00 in September: midnight does not exist on 2026-09-06.
        let santiago = TimeZone(identifier: "America/Santiago")!
        #expect(
            try next("0 0 * * *", in: santiago, after: "2026-09-05T12:00:00Z", count: 2)
                == ["2026-09-06T01:00:00-03:00", "2026-09-07T00:00:00-03:00"])
    }
}
