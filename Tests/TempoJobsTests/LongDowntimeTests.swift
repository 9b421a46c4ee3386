import Foundation
import TempoJobs
import TempoPlans
import TempoTesting
import Testing

/// After any downtime, however long, the catch-up policy sees every missed date: `.once` runs the latest,
/// `.each(within:)` exactly the dates of the window, and `missed` is exact or flagged as a lower bound; computed in
/// bounded time and memory (a test that listed 10 years of minutes would not end in time).
@Suite struct LongDowntimeTests {
    private struct Restart {
        /// The planned dates (seconds since the clock's start) that the restarted scheduler ran in its first
        /// `count` runs.
        var dates: [Double]
        var stats: JobStats
        /// The planned date of the first scheduler's last run (seconds since the clock's start).
        var cursor: Double
        /// The restart's instant (seconds since the clock's start).
        var restartedAt: Double
    }

    /// Runs `schedule` for `firstFor`, stays down for `downtime`, then runs a second scheduler on the same store for 1 s.
    private func restart(
        _ schedule: JobSchedule, catchUp: JobOptions.CatchUp, downtime: Duration, wallJump: Duration = .zero,
        firstFor: Duration = .seconds(25)
    ) async throws -> Restart {
        let clock = VirtualClock()
        let store = InMemoryJobStore()
        let dates = Trace()
        let options = JobOptions(catchUp: catchUp)
        return try await clock.run {
            let first = makeScheduler(on: clock, store: store)
            try first.register("sync", schedule, options: options) { _ in }
            try await run(first, on: clock, for: firstFor)
            let cursor = try #require(try await store.cursor(for: "sync")).lastDate
            try await clock.sleep(for: downtime)
            if wallJump != .zero { _ = clock.adjustWallClock(by: wallJump) }
            let restartedAt = clock.wallDate().timeIntervalSince(wallDate(0))
            let second = makeScheduler(on: clock, store: store)
            try second.register("sync", schedule, options: options) { context in
                dates.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await run(second, on: clock, for: .seconds(1))
            return Restart(
                dates: dates.all.compactMap(Double.init), stats: try #require(second.stats(for: "sync")),
                cursor: cursor.timeIntervalSince(wallDate(0)), restartedAt: restartedAt)
        }
    }

    private static let twoDays = Duration.seconds(2 * 86_400)

    @Test func onceAfterTwoDaysOfAOneSecondJobRunsTheLatestMissedDate() async throws {
        let result = try await restart(.every(.seconds(1)), catchUp: .once, downtime: Self.twoDays + .milliseconds(500))
        let latest = result.restartedAt.rounded(.down)
        // The latest missed date is 0.5 s before the restart (was: a date 72,800 s before it, of the oldest 100,000).
        #expect(result.dates.first == latest)
        #expect(result.stats.missed == Int(latest - result.cursor) - 1)
        #expect(!result.stats.missedIsLowerBound)
    }

    @Test func eachWithinAMinuteAfterTwoDaysRunsExactlyTheSixtyDatesOfTheLastMinute() async throws {
        let result = try await restart(
            .every(.seconds(1)), catchUp: .each(within: .seconds(60)), downtime: Self.twoDays + .milliseconds(500))
        let latest = result.restartedAt.rounded(.down)
        let expected = (0..<60).map { latest - 59 + Double($0) }
        #expect(Array(result.dates.prefix(60)) == expected)
        #expect(result.dates.dropFirst(60).allSatisfy { $0 > latest })
        #expect(result.stats.missed == Int(latest - result.cursor) - 60)
        #expect(!result.stats.missedIsLowerBound)
    }

    @Test func tenYearsOfAMinuteJobAreCountedExactlyAndTheLatestRuns() async throws {
        let tenYears = Duration.seconds(3_650 * 86_400)
        let once = try await restart(
            .every(.seconds(60)), catchUp: .once, downtime: tenYears + .seconds(30), firstFor: .seconds(125))
        let grid = { (t: Double) in once.cursor + ((t - once.cursor) / 60).rounded(.down) * 60 }
        #expect(once.dates.first == grid(once.restartedAt))
        #expect(once.stats.missed == Int((grid(once.restartedAt) - once.cursor) / 60) - 1)

        let each = try await restart(
            .every(.seconds(60)), catchUp: .each(within: .seconds(300)), downtime: tenYears + .seconds(30),
            firstFor: .seconds(125))
        let last = grid(each.restartedAt)
        #expect(each.dates == [last - 240, last - 180, last - 120, last - 60, last])
        #expect(each.stats.missed == Int((last - each.cursor) / 60) - 5)
    }

    @Test func aWallClockSetFiftySixYearsAheadIsOneBoundedCatchUp() async throws {
        let years56 = Duration.seconds(56 * 365 * 86_400)
        let result = try await restart(
            .every(.seconds(1)), catchUp: .once, downtime: .seconds(10), wallJump: years56)
        #expect(result.dates.first == result.restartedAt.rounded(.down))
        #expect(result.stats.missed == Int(result.restartedAt.rounded(.down) - result.cursor) - 1)
    }

    @Test func aCalendarPlanCountsUpToTheLimitAndFlagsTheRestAsALowerBound() async throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let result = try await restart(
            .cron("* * * * *", in: utc), catchUp: .once, downtime: .seconds(3_650 * 86_400 + 30),
            firstFor: .seconds(125))
        // The latest minute before the restart ran; ten years of minutes were not counted one by one.
        let minute = (result.restartedAt + VirtualClock.defaultWallStart.timeIntervalSince1970)
        #expect(
            result.dates.first.map { $0 + VirtualClock.defaultWallStart.timeIntervalSince1970 }
                == (minute / 60).rounded(.down) * 60)
        #expect(result.stats.missedIsLowerBound)
        #expect(result.stats.missed >= Plan.countLimit)
    }

    @Test func aWallClockJumpWhileRunningIsCountedNotListed() async throws {
        let clock = VirtualClock()
        let dates = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("tick", .every(.seconds(1))) { context in
                dates.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await scheduler.run() }
                await settle(clock)
                try await clock.sleep(for: .milliseconds(2_500))
                _ = clock.adjustWallClock(by: .seconds(56 * 365 * 86_400))
                try await clock.sleep(for: .seconds(2))
                scheduler.triggerGracefulShutdown()
                try await group.waitForAll()
            }
            return try #require(scheduler.stats(for: "tick"))
        }
        // Dates 1 and 2, then the wake for date 3 finds 56 years of dates passed: one run stands for them
        // (catch-up `.skip`), counted exactly, and planning goes on from the new now.
        #expect(dates.all.prefix(3).compactMap(Double.init) == [1, 2, 3])
        #expect(stats.missed >= 56 * 365 * 86_400 - 2)
        #expect(!stats.missedIsLowerBound)
    }
}
