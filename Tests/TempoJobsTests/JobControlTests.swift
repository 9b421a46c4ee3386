import Foundation
import TempoJobs
import TempoTesting
import Testing

/// Pause, resume and run-now on one process (``InMemoryJobStore``), and the history the scheduler keeps, on virtual
/// time.
@Suite struct JobControlTests {
    /// Runs `scheduler` on `clock` while `drive` acts on it (after the start settled), then shuts it down.
    private func drive(
        _ scheduler: JobScheduler<VirtualClock>, on clock: VirtualClock,
        _ drive: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await scheduler.run() }
            group.addTask {
                await settle(clock)
                try await drive()
                scheduler.triggerGracefulShutdown()
            }
            try await group.waitForAll()
        }
    }

    /// The planned dates of the runs, in seconds since the clock's start.
    private func seconds(_ runs: [JobRunRecord]) -> [Double] {
        runs.map { $0.plannedDate.timeIntervalSince(wallDate(0)) }
    }

    @Test func aPausedJobStartsNoDateAndResumeGoesOnFromTheNextDateWithoutCatchUp() async throws {
        let clock = VirtualClock()
        let store = try InMemoryJobStore(wallClock: clock.wallDate)
        let trace = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock, store: store)
            try scheduler.register("tick", .every(.seconds(1)), options: JobOptions(catchUp: .once)) { context in
                trace.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await drive(scheduler, on: clock) {
                try await clock.sleep(for: .seconds(2.5))
                try await store.pause(job: "tick")
                await settle(clock)
                #expect(scheduler.stats(for: "tick")?.isPaused == true)
                try await clock.sleep(for: .seconds(3))  // 3, 4 and 5 come while paused
                try await store.resume(job: "tick")
                await settle(clock)
                try await clock.sleep(for: .seconds(2))  // 6 and 7 run; nothing of 3-5 is caught up
            }
            return try #require(scheduler.stats(for: "tick"))
        }
        #expect(trace.all == ["1.0", "2.0", "6.0", "7.0"])
        #expect(stats.skippedWhilePaused == 3)
        #expect(stats.started == 4 && stats.missed == 0 && !stats.isPaused)
        let detail = try #require(try await store.jobDetail(named: "tick", historyLimit: 10))
        #expect(seconds(detail.history) == [7, 6, 2, 1])
        #expect(detail.history.allSatisfy { $0.trigger == .schedule && $0.outcome == .succeeded && $0.attempts == 1 })
        #expect(detail.overview.state == .active && detail.overview.schedule == "every 1.0 seconds")
    }

    @Test func aRestartAfterAResumeDoesNotCatchUpThePausedDates() async throws {
        let clock = VirtualClock()
        let store = try InMemoryJobStore(wallClock: clock.wallDate)
        let trace = Trace()
        try await clock.run {
            let first = makeScheduler(on: clock, store: store)
            try first.register("tick", .every(.seconds(1)), options: JobOptions(catchUp: .each(within: .seconds(3600))))
            { _ in }
            try await drive(first, on: clock) {
                try await clock.sleep(for: .seconds(1.5))
                try await store.pause(job: "tick")
                try await clock.sleep(for: .seconds(5))
                // Resumed at 6.5 while no scheduler runs; the next one starts at 8.5.
                try await store.resume(job: "tick")
            }
            try await clock.sleep(for: .seconds(2))
            let second = makeScheduler(on: clock, store: store)
            try second.register(
                "tick", .every(.seconds(1)), options: JobOptions(catchUp: .each(within: .seconds(3600)))
            ) { context in
                trace.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await drive(second, on: clock) { try await clock.sleep(for: .seconds(1)) }
        }
        // Caught up: 7 and 8 (after the resume at 6.5), not 2 through 6; then 9.
        #expect(trace.all == ["7.0", "8.0", "9.0"])
    }

    @Test func runNowRunsOnceAtOnceEvenWhilePausedAndLeavesTheCursor() async throws {
        let clock = VirtualClock()
        let store = try InMemoryJobStore(wallClock: clock.wallDate)
        let trace = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock, store: store)
            try scheduler.register("report", .every(.seconds(60))) { context in
                trace.append("t=\(clock.seconds)")
            }
            try await drive(scheduler, on: clock) {
                try await clock.sleep(for: .seconds(61))
                try await store.pause(job: "report")
                try await clock.sleep(for: .seconds(10))
                let date = try await store.requestRun(of: "report")
                await settle(clock)
                #expect(try await store.jobOverviews().first?.pendingRuns == 0)
                let detail = try #require(try await store.jobDetail(named: "report", historyLimit: 1))
                #expect(detail.history.first?.plannedDate == date && detail.history.first?.trigger == .runNow)
                try await clock.sleep(for: .seconds(110))  // 120 and 180 come while paused
            }
            return try #require(scheduler.stats(for: "report"))
        }
        #expect(trace.all == ["t=60.0", "t=71.0"])
        #expect(stats.runNow == 1 && stats.started == 2 && stats.skippedWhilePaused == 2)
        #expect(try await store.cursor(for: "report")?.lastDate == wallDate(60))
    }

    @Test func runNowWaitsForTheRunningRunUnderTheOverlapPolicy() async throws {
        let clock = VirtualClock()
        let store = try InMemoryJobStore(wallClock: clock.wallDate)
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock, store: store)
            try scheduler.register("slow", .every(.seconds(60))) { context in
                trace.append("t=\(clock.seconds)")
                try await clock.sleep(for: .seconds(20))
            }
            try await drive(scheduler, on: clock) {
                try await clock.sleep(for: .seconds(65))
                _ = try await store.requestRun(of: "slow")  // the run of 60 goes on until 80
                try await clock.sleep(for: .seconds(20))
            }
        }
        #expect(trace.all == ["t=60.0", "t=80.0"])
    }

    @Test func historyKeepsTheLastRunsWithTheirOutcomeErrorAndAttempts() async throws {
        let clock = VirtualClock()
        let store = try InMemoryJobStore(historyLimit: 3, wallClock: clock.wallDate)
        try await clock.run {
            let scheduler = makeScheduler(on: clock, store: store)
            let policy = RetryPolicy(attempts: 2, backoff: .constant(.seconds(1)))
            try scheduler.register("flaky", .every(.seconds(10)), options: JobOptions(failure: .retry(policy))) {
                context in
                if context.plannedDate.timeIntervalSince(wallDate(0)) >= 40 { throw Boom() }
            }
            try await run(scheduler, on: clock, for: .seconds(55))
        }
        let detail = try #require(try await store.jobDetail(named: "flaky", historyLimit: 10))
        #expect(seconds(detail.history) == [50, 40, 30])
        #expect(detail.history.map(\.outcome) == [.failed, .failed, .succeeded])
        #expect(detail.history.map(\.attempts) == [2, 2, 1])
        #expect(detail.history[0].error == "boom" && detail.history[2].error == nil)
        #expect(detail.history[0].duration == .seconds(1))
        #expect(detail.overview.lastRun == detail.history[0])
        #expect(try await store.jobDetail(named: "flaky", historyLimit: 1)?.history.count == 1)
    }

    @Test func operatorsWritesNameAnUnknownJob() async throws {
        let store = InMemoryJobStore()
        for write in [{ try await store.pause(job: "nope") }, { _ = try await store.requestRun(of: "nope") }] {
            let error = try #require(await #expect(throws: JobError.self) { try await write() })
            #expect(error.code == .unknownJob && error.job == "nope" && error.message.contains("\"nope\""))
        }
        #expect(try await store.jobDetail(named: "nope", historyLimit: 5) == nil)
        #expect(throws: JobError.self) { try InMemoryJobStore(historyLimit: -1) }
    }

    @Test func theSchedulerPublishesTheScheduleInWordsAndTheNextDates() async throws {
        let clock = VirtualClock()
        let store = try InMemoryJobStore(wallClock: clock.wallDate)
        try await clock.run {
            let scheduler = makeScheduler(on: clock, store: store)
            try scheduler.register("tick", .every(.seconds(1))) { _ in }
            try await run(scheduler, on: clock, for: .seconds(30.5))
        }
        let overview = try #require(try await store.jobOverviews().first)
        #expect(overview.name == "tick" && overview.schedule == "every 1.0 seconds" && overview.state == .active)
        #expect(overview.nextDates == (31...35).map { wallDate(Double($0)) })
        // Published again after 15 of its 20 dates: the last publish holds dates past 30.
        let detail = try #require(try await store.jobDetail(named: "tick", historyLimit: 0))
        #expect(detail.history.isEmpty && detail.overview.lastRun?.plannedDate == wallDate(30))
    }
}
