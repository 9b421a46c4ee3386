import Foundation
import Tempo
import TempoTesting
import Testing

@testable import TempoPlans

/// Plan timers after huge wall-clock jumps and past 2116 (issue #26), on virtual time.
@Suite struct PlanTimerEdgeTests {
    let clock = VirtualClock()
    let recorder = FireRecorder()

    private func timer(_ plan: Plan, latePolicy: LateTickPolicy = .coalesce) throws -> PlanTimer {
        let recorder = recorder
        return try PlanTimer(plan, latePolicy: latePolicy, scheduler: clock, handler: .fire { recorder.record($0) })
    }

    /// The example counted 31 million dates one by one (4.3 s) before the one coalesced fire.
    @Test func coalescingAfterAYearLongJumpReportsAtLeastTheCountLimit() throws {
        let timer = try timer(try Plan.cron("* * * * * *", in: Fixture.utc))
        timer.start()
        clock.adjustWallClock(by: .seconds(365 * 86_400))
        let fire = try #require(recorder.all.first)
        #expect(recorder.all.count == 1)
        #expect(fire.planned == Fixture.date("2027-01-01T00:00:00Z"))
        #expect(fire.missed == PlanCursor.countLimit)
        #expect(fire.missedIsLowerBound)
        #expect(fire.description.contains("at least 1024 missed"))
        timer.cancel()
    }

    @Test func aShortJumpStillCountsExactly() throws {
        let timer = try timer(try Plan.cron("* * * * *", in: Fixture.utc))
        timer.start()
        clock.adjustWallClock(by: .seconds(10 * 60 + 30))
        #expect(recorder.all.map(\.missed) == [9])
        #expect(recorder.all.map(\.missedIsLowerBound) == [false])
        #expect(recorder.planned == ["2026-01-01T00:10:00Z"])
        timer.cancel()
    }

    /// A device that boots at 1970 and then gets network time: 56 years of a per-minute plan at once.
    @Test func burstAfterFiftySixYearsDeliversTheNewestDatesOnly() throws {
        let start = VirtualClock(wall: TimerInstant(offset: .zero))
        let recorder = recorder
        let timer = try PlanTimer(
            try Plan.cron("* * * * *", in: Fixture.utc), latePolicy: .burst, scheduler: start,
            handler: .fire {
                recorder.record($0)
            })
        timer.start()
        start.adjustWallClock(by: .seconds(1_767_225_600))
        let fires = recorder.all
        #expect(fires.count == PlanTimer.maximumBurst)
        #expect(fires.last?.planned == Fixture.date("2026-01-01T00:00:00Z"))
        #expect(fires.first?.missedIsLowerBound == true)
        #expect(zip(fires, fires.dropFirst()).allSatisfy { $1.planned.timeIntervalSince($0.planned) == 60 })
        #expect(fires.dropFirst().allSatisfy { $0.missed == 0 })
        timer.cancel()
    }

    @Test func skipAfterAHugeJumpDropsEverythingAndSaysAtLeast() throws {
        let timer = try timer(try Plan.cron("* * * * *", in: Fixture.utc), latePolicy: .skip)
        timer.start()
        clock.adjustWallClock(by: .seconds(20 * 365 * 86_400 + 30))
        #expect(recorder.all.isEmpty)
        clock.advance(by: .seconds(30))
        let fire = try #require(recorder.all.first)
        #expect(fire.missed == PlanCursor.countLimit && fire.missedIsLowerBound)
        timer.cancel()
    }

    /// The example: the wakeup was clamped to 2116, already past, so the timer re-armed at once, forever.
    @Test func aTimerWhoseWallClockReads2118WaitsFor2122() throws {
        let clock = VirtualClock(wall: TimerInstant(offset: .seconds(4_700_000_000)))  // 2118-12-09
        let recorder = recorder
        let date = Date(timeIntervalSince1970: 4_800_000_000)  // 2122-02-08
        let timer = try PlanTimer(try Plan.dates([date]), scheduler: clock, handler: .fire { recorder.record($0) })
        timer.start()
        #expect(clock.advance(by: .seconds(1)) == 0)
        #expect(timer.nextDate == date)
        #expect(clock.pendingCount == 1)
        clock.advance(by: .seconds(100_000_000 - 2))
        #expect(recorder.all.isEmpty)
        clock.advance(by: .seconds(1))
        #expect(recorder.all.map(\.planned) == [date])
        #expect(timer.state == .finished)
    }

    @Test func aDateIn2262IsArmedAndAClockSetBackStillWaitsForIt() throws {
        let clock = VirtualClock(wall: TimerInstant(offset: .seconds(4_700_000_000)))
        let recorder = recorder
        let date = Date(timeIntervalSince1970: 9_000_000_000)  // 2255
        let timer = try PlanTimer(try Plan.dates([date]), scheduler: clock, handler: .fire { recorder.record($0) })
        timer.start()
        clock.advance(by: .seconds(1))
        clock.adjustWallClock(by: .seconds(-4_000_000_000))
        clock.advance(by: .seconds(1))
        #expect(recorder.all.isEmpty)
        #expect(timer.nextDate == date)
        clock.adjustWallClock(by: .seconds(8_299_999_998))
        #expect(recorder.all.map(\.planned) == [date])
    }

    @Test func firesOfAPlanPast2116SleepUntilTheDate() async throws {
        let clock = VirtualClock(wall: TimerInstant(offset: .seconds(4_700_000_000)))
        let date = Date(timeIntervalSince1970: 4_800_000_000)
        let fires = try Plan.dates([date]).fires(scheduler: clock)
        let got = try await clock.run(maximumSteps: 10) { () async -> [Date] in
            var dates: [Date] = []
            for await fire in fires { dates.append(fire.planned) }
            return dates
        }
        #expect(got == [date])
    }
}
