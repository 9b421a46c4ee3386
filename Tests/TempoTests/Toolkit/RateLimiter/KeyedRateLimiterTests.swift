import Tempo
import TempoLocks
import TempoTesting
import Testing

@Suite struct KeyedRateLimiterTests {
    @Test func eachKeyHasItsOwnBucket() throws {
        let clock = VirtualClock()
        let limiter = try KeyedRateLimiter<String>(
            try RateLimit(permits: 1, every: .seconds(1)), configuration: .immediate, scheduler: clock)
        #expect(limiter.tryAcquire("a"))
        #expect(!limiter.tryAcquire("a"))
        #expect(limiter.tryAcquire("b"))
        #expect(limiter.count == 2)
    }

    @Test func anIdleKeyIsForgottenWhenItsBucketIsFullAndNotBefore() throws {
        let clock = VirtualClock()
        let limiter = try KeyedRateLimiter<String>(
            try RateLimit(permits: 2, every: .seconds(1), burst: 4), configuration: .immediate, scheduler: clock)
        for _ in 0..<3 { #expect(limiter.tryAcquire("a")) }
        // 3 of 4 permits used: full again 1.5 s later.
        clock.advance(by: .milliseconds(1_499))
        #expect(limiter.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(limiter.count == 0)
        for _ in 0..<4 { #expect(limiter.tryAcquire("a")) }
        #expect(!limiter.tryAcquire("a"))
    }

    @Test func acquireWaitsForItsKeyOnlyAndCancellationEndsItAtOnce() async throws {
        let clock = VirtualClock()
        let limiter = try KeyedRateLimiter<Int>(
            try RateLimit(permits: 1, every: .seconds(10)), configuration: .immediate, scheduler: clock)
        #expect(limiter.tryAcquire(1))
        let waiter = Task { try await limiter.acquire(1) }
        try await limiter.acquire(2)  // another key: free at once
        #expect(await clock.waitForPending(2, timeout: .seconds(60)))  // the wheel's driver and the waiter's sleep
        clock.advance(by: .seconds(10))
        try await waiter.value
        let cancelled = Task { try await limiter.acquire(1) }
        #expect(await clock.waitForPending(2, timeout: .seconds(60)))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    @Test(arguments: 0..<4) func randomRequestsMatchATokenBucketPerKeyThatIsNeverForgotten(round: Int) throws {
        let seed = SeededGenerator.seed()
        print("KeyedRateLimiterTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let limit = try RateLimit(
            permits: Int.random(in: 1...9, using: &random),
            every: .milliseconds(Int.random(in: 1...50, using: &random)),
            burst: Int.random(in: 1...5, using: &random))
        let limiter = try KeyedRateLimiter<Int>(limit, configuration: .immediate, scheduler: clock)
        var buckets: [Int: TokenBucketReference] = [:]
        var now = Duration.zero
        for step in 0..<20_000 {
            if Int.random(in: 0..<3, using: &random) == 0 {
                let step = Duration.microseconds(Int.random(in: 0...3_000, using: &random))
                clock.advance(by: step)
                now += step
            }
            let key = Int.random(in: 0..<32, using: &random)
            var bucket = buckets[key] ?? TokenBucketReference(limit, at: now)
            let expected = bucket.tryAcquire(at: now)
            buckets[key] = bucket
            guard limiter.tryAcquire(key) == expected else {
                Issue.record("seed \(seed) step \(step) key \(key): limiter disagrees with the token bucket (\(limit))")
                return
            }
            // Held: exactly the keys whose bucket is not full at the last whole millisecond (the wheel's tick).
            let tick = Duration.milliseconds(now.attoseconds / 1_000_000_000_000_000)
            let held = buckets.values.filter { $0.full > tick }.count
            guard limiter.count == held else {
                Issue.record("seed \(seed) step \(step): \(limiter.count) keys held, expected \(held)")
                return
            }
            if step % 500 == 0 { limiter._checkInvariants() }
        }
    }

    /// Thousands of keys forgotten in one batch, among others that came back in the meantime (their timers re-armed in
    /// the same batch): the batch path (`WheelKeyTable.prefetch(_:at:homes:)`) forgets exactly the idle ones, and the
    /// index still finds every key.
    @Test func thousandsOfIdleKeysAreForgottenInOneBatchAndTheRestKept() throws {
        let clock = VirtualClock()
        let limiter = try KeyedRateLimiter<Int>(
            try RateLimit(permits: 1, every: .milliseconds(10), burst: 2), configuration: .immediate, scheduler: clock)
        // Each key's bucket is full again 10 ms after its one permit: 12,000 timers due at 10 ms.
        for key in 0..<12_000 { #expect(limiter.tryAcquire(key)) }
        clock.advance(by: .milliseconds(5))
        // A third of the keys take a second permit: full again at 20 ms, so their timers re-arm when they fire at 10.
        for key in stride(from: 1, to: 12_000, by: 3) { #expect(limiter.tryAcquire(key)) }
        clock.advance(by: .milliseconds(5))
        #expect(limiter.count == 4_000)
        limiter._checkInvariants()
        // The kept keys are the ones that came back: a forgotten key starts again with a full bucket (2 permits), a kept
        // one has refilled only one.
        for key in 0..<12_000 {
            let cameBack = key % 3 == 1
            #expect(limiter.tryAcquire(key), "key \(key)")
            #expect(limiter.tryAcquire(key) != cameBack, "key \(key)")
        }
        #expect(limiter.count == 12_000)
        limiter._checkInvariants()
    }
}
