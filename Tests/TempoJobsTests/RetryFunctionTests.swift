import Clocks
import TempoJobs
import TempoTesting
import Testing

/// `retry(attempts:backoff:clock:operation:)` on any clock.
@Suite struct RetryFunctionTests {
    @Test func waitsExactlyTheBackoffBetweenAttemptsOnVirtualTime() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let result = try await clock.run {
            try await retry(
                attempts: 5, backoff: .exponential(initial: .milliseconds(500), multiplier: 3, cap: .seconds(10)),
                clock: clock
            ) { attempt in
                trace.append("\(attempt)@\(clock.seconds)")
                if attempt < 4 { throw Boom() }
                return attempt
            }
        }
        #expect(result == 4)
        #expect(trace.all == ["1@0.0", "2@0.5", "3@2.0", "4@6.5"])
    }

    @Test func rethrowsTheLastErrorWhenEveryAttemptFailed() async throws {
        let clock = VirtualClock()
        let attempts = Trace()
        await #expect(throws: Boom.self) {
            try await clock.run {
                try await retry(attempts: 3, backoff: .constant(.seconds(1)), clock: clock) { attempt in
                    attempts.append("\(attempt)")
                    throw Boom()
                }
            }
        }
        #expect(attempts.all == ["1", "2", "3"])
    }

    @Test func cancellationEndsTheWaitAtOnce() async throws {
        let clock = VirtualClock()
        let task = Task {
            try await retry(attempts: 3, backoff: .constant(.seconds(3600)), clock: clock) { _ in throw Boom() }
        }
        #expect(await clock.waitForPending(1))  // asleep in the first backoff
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.now == .zero)  // no time passed: the wait ended on cancellation, not on the clock
        #expect(clock.pendingCount == 0)
    }

    @Test func badInputThrowsBeforeAnyAttempt() async throws {
        let clock = VirtualClock()
        let attempts = Trace()
        await #expect {
            try await retry(attempts: 0, backoff: .constant(.seconds(1)), clock: clock) { _ in attempts.append("x") }
        } throws: { error in
            (error as? JobError)?.code == .invalidRetryPolicy && "\(error)".contains("got 0")
        }
        await #expect(throws: JobError.self) {
            try await retry(attempts: 2, backoff: .constant(.zero), clock: clock) { _ in attempts.append("x") }
        }
        #expect(attempts.all.isEmpty)
    }

    @Test func waitsExactlyTheBackoffOnSwiftClocksTestClock() async throws {
        let clock = TestClock<Duration>()
        let trace = Trace()
        let task = Task {
            try await retry(attempts: 4, backoff: .exponential(initial: .seconds(1), cap: .seconds(60)), clock: clock) {
                attempt in
                trace.append("\(attempt)@\(clock.elapsed)")
                if attempt < 3 { throw Boom() }
                return attempt
            }
        }
        // The backoff doubles: attempt 2 is due 1 s after attempt 1 (at 1 s), attempt 3 2 s after it (at 3 s).
        #expect(await clock.waitForSleep())
        await clock.advance(by: .milliseconds(999))
        #expect(trace.all == ["1@0.0 seconds"])
        await clock.advance(by: .milliseconds(1))
        #expect(await clock.waitForSleep())
        #expect(trace.all == ["1@0.0 seconds", "2@1.0 seconds"])
        await clock.advance(by: .milliseconds(1999))
        #expect(trace.all.count == 2)
        await clock.advance(by: .milliseconds(1))
        #expect(try await task.value == 3)
        #expect(trace.all == ["1@0.0 seconds", "2@1.0 seconds", "3@3.0 seconds"])
    }

    @Test func cancellationEndsAWaitOnSwiftClocksTestClockAtOnce() async throws {
        let clock = TestClock<Duration>()
        let attempts = Trace()
        let task = Task {
            try await retry(attempts: 3, backoff: .constant(.seconds(3600)), clock: clock) { attempt in
                attempts.append("\(attempt)")
                throw Boom()
            }
        }
        #expect(await clock.waitForSleep())  // asleep in the first backoff
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(attempts.all == ["1"])
        #expect(clock.elapsed == .zero)
        try await clock.checkSuspension()  // the wait ended: nothing is asleep on the clock
    }

    @Test func worksOnTheContinuousClock() async throws {
        let value = try await retry(attempts: 2, backoff: .constant(.milliseconds(1)), clock: ContinuousClock()) {
            attempt in
            if attempt == 1 { throw Boom() }
            return "ok"
        }
        #expect(value == "ok")
    }
}

extension TestClock<Duration> {
    /// The time since the clock's start.
    var elapsed: Duration { Instant().duration(to: now) }

    /// Waits until a task sleeps on the clock (up to 60 s of real time, a bound that only catches a hang), so that
    /// an advance cannot run before the sleep it is meant to end.
    func waitForSleep() async -> Bool {
        let start = ContinuousClock.now
        while start.duration(to: .now) < .seconds(60) {
            do {
                try await checkSuspension()
            } catch {
                return true
            }
        }
        return false
    }
}
