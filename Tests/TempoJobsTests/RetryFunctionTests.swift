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

    @Test func worksOnTheContinuousClock() async throws {
        let value = try await retry(attempts: 2, backoff: .constant(.milliseconds(1)), clock: ContinuousClock()) {
            attempt in
            if attempt == 1 { throw Boom() }
            return "ok"
        }
        #expect(value == "ok")
    }
}
