import TempoTesting
import Testing

@testable import Tempo

/// The lock-free form of ``RateLimiter`` (a whole number of nanoseconds per permit, on one 64-bit atomic) against the
/// token bucket reference, on virtual time stepped in whole nanoseconds.
@Suite struct NanosecondRateLimiterTests {
    @Test func theSystemSchedulerUsesTheLockFreeFormWhenAPermitIsWholeNanoseconds() throws {
        #expect(RateLimiter(try RateLimit(permits: 100, every: .seconds(1))).nanosecondGCRA != nil)
        #expect(RateLimiter(try RateLimit(permits: 1_000_000_000, every: .seconds(1))).nanosecondGCRA != nil)
        // 1/3 s per permit is not a whole number of nanoseconds; the wall clock may jump.
        #expect(RateLimiter(try RateLimit(permits: 3, every: .seconds(1))).nanosecondGCRA == nil)
        #expect(RateLimiter(try RateLimit(permits: 100, every: .seconds(1)), clock: .wall).nanosecondGCRA == nil)
        // A bucket of more than 2^61 ns (73 years) does not fit.
        let huge = try RateLimit(permits: 1, every: .seconds(100 * 365 * 86_400))
        #expect(RateLimiter(huge).nanosecondGCRA == nil)
        #expect(
            RateLimiter(try RateLimit(permits: 10, every: .seconds(1)), scheduler: VirtualClock()).nanosecondGCRA == nil
        )
    }

    @Test(arguments: 0..<4) func randomRequestsMatchTheTokenBucket(round: Int) throws {
        let seed = SeededGenerator.seed()
        print("NanosecondRateLimiterTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let permits = Int.random(in: 1...9, using: &random)
        let limit = try RateLimit(
            permits: permits,
            every: .nanoseconds(permits * Int.random(in: 1...70_000_000, using: &random)),
            burst: Int.random(in: 1...5, using: &random))
        let limiter = RateLimiter(
            limit, scheduler: clock, clock: .monotonic, nanosecondReadings: true, platformClock: false)
        #expect(limiter.nanosecondGCRA != nil)
        var reference = TokenBucketReference(limit, at: .zero)
        var now = Duration.zero
        for step in 0..<20_000 {
            if Int.random(in: 0..<3, using: &random) == 0 {
                let step = Duration.nanoseconds(Int64.random(in: 0...40_000_000, using: &random))
                clock.advance(by: step)
                now += step
            }
            let expected = reference.tryAcquire(at: now)
            guard limiter.tryAcquire() == expected else {
                Issue.record("seed \(seed) step \(step) at \(now): limiter disagrees with the token bucket (\(limit))")
                return
            }
            // The reference was just refilled to `now`: a permit is free once the missing part of a token refills.
            let missing = reference.token - reference.level
            let wait = Duration(attoseconds: missing <= 0 ? 0 : (missing + reference.permits - 1) / reference.permits)
            guard limiter.timeUntilAvailable == wait else {
                Issue.record("seed \(seed) step \(step): waits \(limiter.timeUntilAvailable), reference \(wait)")
                return
            }
        }
    }
}
