import Tempo
import TempoTesting
import Testing

/// Rates at the limits of their types (issue #41, the same class of bug as its findings) run without trapping.
@Suite struct RateLimitLimitTests {
    private static let year = Duration.seconds(365 * 86_400)

    /// Past 2^127 / 10^9 attoseconds (5,400 years) a limiter of 10^9 permits trapped scaling the time since it was
    /// made ("Overflow in *"); its time now stops at 2^126 / 10^9 attoseconds.
    @Test func theLargestRatesRunIntoTheFarFutureWithoutTrapping() throws {
        let clock = VirtualClock()
        let limits = [
            try RateLimit(permits: 1, every: TempoError.maximumDuration, burst: RateLimit.maximumCount),
            try RateLimit(
                permits: RateLimit.maximumCount, every: TempoError.maximumDuration, burst: RateLimit.maximumCount),
            try RateLimit(permits: RateLimit.maximumCount, every: .nanoseconds(1), burst: RateLimit.maximumCount),
        ]
        let limiters = limits.map { RateLimiter($0, scheduler: clock) }
        for limiter in limiters {
            #expect(limiter.tryAcquire())
            _ = limiter.timeUntilAvailable
        }
        // 10,000 years: past 2^126 / 10^9 attoseconds (2,700 years), where a limiter of 10^9 permits stops its time.
        for _ in 0..<4 {
            clock.advance(by: Self.year * 2_500)
            for limiter in limiters {
                for _ in 0..<6 { _ = limiter.tryAcquire() }
                _ = limiter.timeUntilAvailable
            }
        }
    }

    /// A key's bucket refilling past the wheel's range (one permit per 200 years, a burst of 2: full 400 years
    /// later) kept its old forget deadline, so the key was forgotten after 200 years, its bucket still not full,
    /// and then admitted a full burst again.
    @Test func aKeyWhoseBucketRefillsPastTheWheelsRangeIsNotForgottenEarly() throws {
        let clock = VirtualClock()
        let limiter = try KeyedRateLimiter<String>(
            try RateLimit(permits: 1, every: Self.year * 200, burst: 2), configuration: .immediate, scheduler: clock)
        // Locals: a failed expectation reflects its operands, and reflecting the limiter crashes Swift Testing.
        let first = [limiter.tryAcquire("a"), limiter.tryAcquire("a"), limiter.tryAcquire("a")]
        #expect(first == [true, true, false])
        clock.advance(by: Self.year * 201)
        let count = limiter.count
        #expect(count == 1)
        // At 201 years the bucket holds one permit (it was empty at 0 and refills one per 200 years).
        let later = [limiter.tryAcquire("a"), limiter.tryAcquire("a")]
        #expect(later == [true, false])
        limiter._checkInvariants()
    }
}
