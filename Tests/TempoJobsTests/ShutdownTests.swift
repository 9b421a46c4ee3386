import Logging
import ServiceLifecycle
import TempoJobs
import TempoTesting
import Testing

/// Graceful shutdown: no new run, a grace period, then cancellation; `run()` returns when the last run ended.
@Suite struct ShutdownTests {
    @Test func aRunGoingAtShutdownFinishesWithinTheGracePeriodAndNoNewRunStarts() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let ended = try await clock.run {
            let scheduler = makeScheduler(on: clock, gracePeriod: .seconds(30))
            try scheduler.register("long", .every(.seconds(10))) { _ in
                trace.append("start \(clock.seconds)")
                try await clock.sleep(for: .seconds(20))
                trace.append("end \(clock.seconds)")
            }
            return try await run(scheduler, on: clock, for: .seconds(15))
        }
        #expect(trace.all == ["start 10.0", "end 30.0"])
        #expect(ended == 30)
    }

    @Test func theGracePeriodEndsInCancellationNamingTheJobsStillRunning() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let log = Trace()
        let ended = try await clock.run {
            let scheduler = makeScheduler(on: clock, log: log, gracePeriod: .seconds(10))
            try scheduler.register("endless", .every(.seconds(10))) { _ in
                do {
                    try await clock.sleep(for: .seconds(1000))
                } catch {
                    trace.append("cancelled \(clock.seconds)")
                    throw error
                }
            }
            return try await run(scheduler, on: clock, for: .seconds(15))
        }
        #expect(trace.all == ["cancelled 25.0"])
        #expect(ended == 25)
        #expect(
            log.all.contains { $0.hasPrefix("error job scheduler: grace period ended") && $0.contains("jobs=endless") })
    }

    @Test func aBodyIgnoringCancellationIsAbandonedAndRunReturnsWithoutBlockingOtherJobs() async throws {
        let clock = VirtualClock()
        let log = Trace()
        let outcome = try await clock.run {
            // The default abandon delay (5 s): shutdown at 55, grace ends at 65, run() returns at 70.
            let scheduler = makeScheduler(on: clock, log: log, gracePeriod: .seconds(10))
            try scheduler.register("stubborn", .at(wallDate(5))) { _ in
                // Ignores cancellation: waits out 100 s of the clock on a callback that cancellation cannot end.
                let deadline = clock.now(.monotonic).advanced(by: .seconds(100))
                await withCheckedContinuation { continuation in
                    _ = clock.schedule(at: deadline, leeway: .zero, clock: .monotonic) { continuation.resume() }
                }
            }
            try scheduler.register("other", .every(.seconds(10))) { _ in }
            let ended = try await run(scheduler, on: clock, for: .seconds(55))
            let runningAtReturn = scheduler.stats(for: "stubborn")?.running
            // The abandoned body still ends (at 105) while the process lives, and its job counts it.
            try await clock.sleep(for: .seconds(50))
            return (ended, scheduler.stats(for: "other")?.succeeded, runningAtReturn, scheduler.stats(for: "stubborn"))
        }
        #expect(outcome.0 == 70)
        #expect(outcome.1 == 5)  // 10 ... 50, while "stubborn" never returned
        #expect(outcome.2 == 1)
        #expect(outcome.3?.running == 0 && outcome.3?.succeeded == 1)
        #expect(
            log.all.contains { $0.hasPrefix("error job scheduler: grace period ended") && $0.contains("jobs=stubborn") }
        )
        #expect(
            log.all.contains {
                $0.hasPrefix("error job scheduler: runs ignored cancellation; returning without them")
                    && $0.contains("jobs=stubborn")
            })
    }

    @Test func aZeroAbandonDelayReturnsWhenTheGracePeriodEnds() async throws {
        let clock = VirtualClock()
        let ended = try await clock.run {
            let scheduler = makeScheduler(on: clock, gracePeriod: .seconds(10), abandonAfter: .zero)
            try scheduler.register("stubborn", .at(wallDate(5))) { _ in
                let deadline = clock.now(.monotonic).advanced(by: .seconds(100))
                await withCheckedContinuation { continuation in
                    _ = clock.schedule(at: deadline, leeway: .zero, clock: .monotonic) { continuation.resume() }
                }
            }
            let ended = try await run(scheduler, on: clock, for: .seconds(15))
            try await clock.sleep(for: .seconds(100))  // let the abandoned body end before the test does
            return ended
        }
        #expect(ended == 25)
    }

    @Test func cancellingRunCancelsRunsAtOnceAndReturnsAfterTheAbandonDelay() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let ended = try await clock.run {
            let scheduler = makeScheduler(on: clock, gracePeriod: .seconds(30), abandonAfter: .seconds(3))
            try scheduler.register("polite", .at(wallDate(5))) { _ in
                do {
                    try await clock.sleep(for: .seconds(1000))
                } catch {
                    trace.append("polite cancelled \(clock.seconds)")
                    throw error
                }
            }
            try scheduler.register("stubborn", .at(wallDate(5))) { _ in
                let deadline = clock.now(.monotonic).advanced(by: .seconds(100))
                await withCheckedContinuation { continuation in
                    _ = clock.schedule(at: deadline, leeway: .zero, clock: .monotonic) { continuation.resume() }
                }
            }
            return try await withThrowingTaskGroup(of: Double?.self) { group in
                group.addTask {
                    try await scheduler.run()
                    return clock.seconds
                }
                await settle(clock)
                try await clock.sleep(for: .seconds(10))
                group.cancelAll()  // cancels the task of run() (this one goes on)
                var ended = 0.0
                for try await value in group { if let value { ended = value } }
                try await clock.sleep(for: .seconds(100))  // let the abandoned body end before the test does
                return ended
            }
        }
        #expect(trace.all == ["polite cancelled 10.0"])
        #expect(ended == 13)
    }

    @Test func noRetryStartsOnceShutdownBegan() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            let policy = RetryPolicy(attempts: 5, backoff: .constant(.seconds(10)))
            try scheduler.register("r", .at(wallDate(5)), options: JobOptions(failure: .retry(policy))) {
                context in
                trace.append("attempt \(context.attempt) at \(clock.seconds)")
                throw Boom()
            }
            try await run(scheduler, on: clock, for: .seconds(20))
        }
        #expect(trace.all == ["attempt 1 at 5.0", "attempt 2 at 15.0"])
    }

    @Test func aShutdownDuringARetryWaitEndsTheWaitAtOnce() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let ended = try await clock.run {
            let scheduler = makeScheduler(on: clock, gracePeriod: .seconds(30))
            let policy = RetryPolicy(attempts: 5, backoff: .constant(.seconds(60)))
            try scheduler.register("r", .at(wallDate(5)), options: JobOptions(failure: .retry(policy))) {
                context in
                trace.append("attempt \(context.attempt) at \(clock.seconds)")
                throw Boom()
            }
            return try await run(scheduler, on: clock, for: .seconds(20))
        }
        // Shutdown at 20, during the 60 s wait after attempt 1: the wait ends then (was: at 50, the grace period's
        // end), and no retry starts.
        #expect(trace.all == ["attempt 1 at 5.0"])
        #expect(ended == 20)
    }

    @Test func shutdownBeforeRunMakesRunReturnAtOnceAndRunTwiceThrows() async throws {
        let clock = VirtualClock()
        let scheduler = makeScheduler(on: clock)
        scheduler.triggerGracefulShutdown()
        try await scheduler.run()
        await #expect(throws: JobError.self) { try await scheduler.run() }
        #expect(throws: JobError.self) { try scheduler.register("x", .every(.seconds(1))) { _ in } }
    }

    @Test func inAServiceGroupTheGroupsGracefulShutdownStopsTheScheduler() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let ended = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("report", .every(.seconds(10))) { _ in
                trace.append("start \(clock.seconds)")
                try await clock.sleep(for: .seconds(8))
                trace.append("end \(clock.seconds)")
            }
            let group = ServiceGroup(
                services: [scheduler], logger: Logger(label: "group") { _ in RecordingLogHandler(trace: trace) })
            return try await withThrowingTaskGroup(of: Double?.self) { tasks in
                tasks.addTask {
                    try await group.run()
                    return clock.seconds
                }
                // The group sets up its signal handling off the clock's sight: keep time still until the job's
                // first wait is armed (a bound of 60 s of real time only catches a hang).
                let armed = await clock.holdingTime {
                    let start = ContinuousClock.now
                    while clock.pendingCount == 0 && start.duration(to: .now) < .seconds(60) {
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                    return clock.pendingCount > 0
                }
                #expect(armed)
                try await clock.sleep(for: .seconds(25))
                await group.triggerGracefulShutdown()
                var ended = 0.0
                for try await value in tasks { if let value { ended = value } }
                return ended
            }
        }
        #expect(trace.all.filter { !$0.hasPrefix("debug") } == ["start 10.0", "end 18.0", "start 20.0", "end 28.0"])
        #expect(trace.all.contains { $0.hasPrefix("debug Triggering graceful shutdown for service") })
        #expect(ended == 28)
    }
}
