import TempoJobs
import TempoTesting
import Testing

/// A date that comes while runs are still going meets the job's overlap policy.
@Suite struct OverlapTests {
    /// Every 10 s, each run taking 25 s, for 45 s; returns the start times and the statistics.
    private func slowJob(_ overlap: JobOptions.Overlap, log: Trace = Trace()) async throws -> ([String], JobStats) {
        let clock = VirtualClock()
        let trace = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock, log: log)
            try scheduler.register("slow", .every(.seconds(10)), options: JobOptions(overlap: overlap)) {
                context in
                trace.append("t=\(clock.seconds) date=\(context.plannedDate.timeIntervalSince(wallDate(0)))")
                try await clock.sleep(for: .seconds(25))
            }
            try await run(scheduler, on: clock, for: .seconds(45))
            return try #require(scheduler.stats(for: "slow"))
        }
        return (trace.all, stats)
    }

    @Test func skipIsTheDefaultAndCountsAndLogsEachSkippedDate() async throws {
        let log = Trace()
        let (starts, stats) = try await slowJob(JobOptions().overlap, log: log)
        #expect(starts == ["t=10.0 date=10.0", "t=40.0 date=40.0"])
        #expect(stats.skipped == 2 && stats.started == 2)
        #expect(log.all.filter { $0.contains("skipped a date") && $0.contains("job=slow") }.count == 2)
    }

    @Test func queueOneRunsOneWaitingDateWhenTheRunEndsAndSkipsTheRest() async throws {
        let (starts, stats) = try await slowJob(.queueOne)
        // 20 waits for the run of 10 (ends at 35); 30 is skipped while 20 waits; 40 waits for the run of 20.
        #expect(starts == ["t=10.0 date=10.0", "t=35.0 date=20.0"])
        #expect(stats.skipped == 2 && stats.started == 2)
    }

    @Test func concurrentRunsUpToItsLimitAtOnce() async throws {
        let (starts, stats) = try await slowJob(.concurrent(limit: 2))
        #expect(starts == ["t=10.0 date=10.0", "t=20.0 date=20.0", "t=40.0 date=40.0"])
        #expect(stats.skipped == 1)
    }

    @Test func aQueuedRunKnowsHowLateItStarted() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("q", .every(.seconds(10)), options: JobOptions(overlap: .queueOne)) {
                context in
                trace.append("late=\(context.lateness)")
                try await clock.sleep(for: .seconds(15))
            }
            try await run(scheduler, on: clock, for: .seconds(28))
        }
        #expect(trace.all == ["late=0.0 seconds", "late=5.0 seconds"])
    }
}
