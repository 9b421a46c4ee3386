import TempoJobs
import TempoTesting
import Testing

/// A failing run meets the job's failure policy; its error is never lost and never stops other jobs.
@Suite struct FailureTests {
    @Test func logAndContinueLogsTheErrorKeepsItAndRunsTheNextDate() async throws {
        let clock = VirtualClock()
        let log = Trace()
        let trace = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock, log: log)
            try scheduler.register("flaky", .every(.seconds(10))) { _ in
                trace.append("t=\(clock.seconds)")
                throw Boom()
            }
            try await run(scheduler, on: clock, for: .seconds(35))
            return try #require(scheduler.stats(for: "flaky"))
        }
        #expect(trace.all == ["t=10.0", "t=20.0", "t=30.0"])
        #expect(stats.failed == 3 && stats.succeeded == 0 && stats.lastError == "boom")
        #expect(log.all.filter { $0.hasPrefix("error job run failed") && $0.contains("error=boom") }.count == 3)
    }

    @Test func retryWaitsTheExponentialBackoffExactlyUpToItsAttempts() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            let policy = RetryPolicy(attempts: 4, backoff: .exponential(initial: .seconds(1), cap: .seconds(3)))
            try scheduler.register(
                "retry", .every(.seconds(100)), options: JobOptions(failure: .retry(policy))
            ) { context in
                trace.append("t=\(clock.seconds) attempt=\(context.attempt)")
                throw Boom()
            }
            try await run(scheduler, on: clock, for: .seconds(150))
            return try #require(scheduler.stats(for: "retry"))
        }
        // Waits 1, 2, then 3 (4 capped to 3).
        #expect(trace.all == ["t=100.0 attempt=1", "t=101.0 attempt=2", "t=103.0 attempt=3", "t=106.0 attempt=4"])
        #expect(stats.retries == 3 && stats.failedAttempts == 4 && stats.failed == 1 && stats.started == 1)
    }

    @Test func retryStopsAtTheFirstSuccess() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            let policy = RetryPolicy(attempts: 5, backoff: .constant(.seconds(2)))
            try scheduler.register(
                "third", .every(.seconds(100)), options: JobOptions(failure: .retry(policy))
            ) { context in
                trace.append("attempt=\(context.attempt)")
                if context.attempt < 3 { throw Boom() }
            }
            try await run(scheduler, on: clock, for: .seconds(150))
            return try #require(scheduler.stats(for: "third"))
        }
        #expect(trace.all == ["attempt=1", "attempt=2", "attempt=3"])
        #expect(stats.succeeded == 1 && stats.failed == 0 && stats.failedAttempts == 2)
    }

    /// A run whose claim was lost (a fenced write refused) ends at its first attempt under a retry policy, and does
    /// not stop a `.stopJob` job: its next dates run.
    @Test func aRunWhoseClaimWasLostIsNeitherRetriedNorStopsTheJob() async throws {
        for failure in [JobOptions.Failure.retry(RetryPolicy(attempts: 5, backoff: .constant(.seconds(1)))), .stopJob] {
            let clock = VirtualClock()
            let log = Trace()
            let trace = Trace()
            let stats = try await clock.run {
                let scheduler = makeScheduler(on: clock, log: log)
                try scheduler.register("fenced", .every(.seconds(10)), options: JobOptions(failure: failure)) {
                    context in
                    trace.append("t=\(clock.seconds) attempt=\(context.attempt)")
                    if clock.seconds < 15 { throw JobError(.claimLost, job: "fenced", message: "lease ran out") }
                }
                try await run(scheduler, on: clock, for: .seconds(25))
                return try #require(scheduler.stats(for: "fenced"))
            }
            #expect(trace.all == ["t=10.0 attempt=1", "t=20.0 attempt=1"], "\(failure)")
            #expect(stats.failed == 1 && stats.succeeded == 1 && stats.retries == 0 && !stats.isStopped)
            #expect(log.all.contains { $0.contains("job not retried: its claim was lost") })
        }
    }

    /// The attempt times of a job that always fails, with jittered backoff and the given seed.
    private func jitteredAttempts(_ jitter: Backoff.Jitter, seed: UInt64) async throws -> [Double] {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock, seed: seed)
            let backoff = Backoff.exponential(initial: .seconds(1), cap: .seconds(30), jitter: jitter)
            let policy = RetryPolicy(attempts: 6, backoff: backoff)
            try scheduler.register(
                "jitter", .every(.seconds(1000)), options: JobOptions(failure: .retry(policy))
            ) { _ in
                trace.append("\(clock.seconds)")
                throw Boom()
            }
            try await run(scheduler, on: clock, for: .seconds(1100))
        }
        return trace.all.compactMap(Double.init)
    }

    @Test(arguments: [Backoff.Jitter.full, .decorrelated])
    func jitteredBackoffIsTheSameForTheSameSeedAndWithinItsBounds(_ jitter: Backoff.Jitter) async throws {
        let first = try await jitteredAttempts(jitter, seed: 42)
        let second = try await jitteredAttempts(jitter, seed: 42)
        let other = try await jitteredAttempts(jitter, seed: 43)
        #expect(first.count == 6 && first == second && first != other)
        let waits = zip(first.dropFirst(), first).map { $0 - $1 }
        for (retry, wait) in waits.enumerated() {
            switch jitter {
            case .full: #expect(wait >= 0 && wait <= min(30, Double(1 << retry)) + 1e-6)
            default: #expect(wait >= 1 - 1e-6 && wait <= 30 + 1e-6)
            }
        }
    }

    @Test func stopJobEndsTheJobAfterAFailureWhileOtherJobsGoOn() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let (stopped, other) = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("fragile", .every(.seconds(10)), options: JobOptions(failure: .stopJob)) {
                _ in
                trace.append("fragile \(clock.seconds)")
                throw Boom()
            }
            try scheduler.register("steady", .every(.seconds(10))) { _ in }
            try await run(scheduler, on: clock, for: .seconds(35))
            return (try #require(scheduler.stats(for: "fragile")), try #require(scheduler.stats(for: "steady")))
        }
        #expect(trace.all == ["fragile 10.0"])
        #expect(stopped.isStopped && stopped.failed == 1)
        #expect(other.succeeded == 3 && !other.isStopped)
    }

    @Test func aTimeoutCancelsTheRunAndCountsAsAFailure() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register(
                "stuck", .every(.seconds(100)), options: JobOptions(timeout: .seconds(5))
            ) { _ in
                do {
                    try await clock.sleep(for: .seconds(60))
                } catch {
                    trace.append("cancelled at \(clock.seconds)")
                    throw error
                }
            }
            try await run(scheduler, on: clock, for: .seconds(150))
            return try #require(scheduler.stats(for: "stuck"))
        }
        #expect(trace.all == ["cancelled at 105.0"])
        #expect(stats.timedOut == 1 && stats.failed == 1)
        #expect(stats.lastError?.contains("timedOut: job \"stuck\" ran longer than its timeout of 5.0 seconds") == true)
    }

    @Test func aThrowingJobNeverStopsTheOtherJobs() async throws {
        let clock = VirtualClock()
        let counts = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("bad", .every(.seconds(5))) { _ in throw Boom() }
            try scheduler.register("good", .every(.seconds(5))) { _ in }
            try await run(scheduler, on: clock, for: .seconds(22))
            return (scheduler.stats(for: "bad")?.failed, scheduler.stats(for: "good")?.succeeded)
        }
        #expect(counts.0 == 4 && counts.1 == 4)
    }
}
