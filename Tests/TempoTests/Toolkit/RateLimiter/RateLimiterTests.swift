import Tempo
import TempoLocks
import TempoTesting
import Testing

@Suite struct RateLimiterTests {
    @Test func anIdleLimiterAdmitsTheBurstThenOnePermitPerInterval() throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(try RateLimit(permits: 3, every: .seconds(1), burst: 2), scheduler: clock)
        #expect(limiter.tryAcquire())
        #expect(limiter.tryAcquire())
        #expect(!limiter.tryAcquire())
        // One permit per 1/3 s: 333,333,333.33... ns, so not at 333,333,333 ns but at the next nanosecond.
        clock.advance(by: .nanoseconds(333_333_333))
        #expect(!limiter.tryAcquire())
        clock.advance(by: .nanoseconds(1))
        #expect(limiter.tryAcquire())
        #expect(!limiter.tryAcquire())
    }

    @Test func admissionsDoNotDriftOverAMillionRequests() throws {
        let clock = VirtualClock()
        let limit = try RateLimit(permits: 3, every: .seconds(1), burst: 2)
        let limiter = RateLimiter(limit, scheduler: clock)
        var admitted = 0
        var requests = 0
        var milliseconds = 0
        while requests < 1_000_000 {
            // A client that asks until it is refused, every millisecond: a burst of 2 never overflows, so after
            // t ms it has exactly burst + ⌊3 t / 1,000⌋ admissions.
            while true {
                requests += 1
                guard limiter.tryAcquire() else { break }
                admitted += 1
            }
            let expected = 2 + (milliseconds * 3) / 1_000
            guard admitted == expected else {
                Issue.record("at \(milliseconds) ms, request \(requests): admitted \(admitted), expected \(expected)")
                return
            }
            clock.advance(by: .milliseconds(1))
            milliseconds += 1
        }
        #expect(requests >= 1_000_000)
        #expect(admitted == 2 + ((milliseconds - 1) * 3) / 1_000)
    }

    @Test func acquireWaitsExactlyUntilTheNextPermit() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(try RateLimit(permits: 1, every: .seconds(2)), scheduler: clock)
        #expect(limiter.tryAcquire())
        #expect(limiter.timeUntilAvailable == .seconds(2))
        let done = TempoMutex(false)
        let waiter = Task {
            try await limiter.acquire()
            done.withLock { $0 = true }
        }
        #expect(await clock.waitForPending(1, timeout: .seconds(60)))
        clock.advance(by: .seconds(2) - .nanoseconds(1))
        #expect(!done.withLock { $0 })
        clock.advance(by: .nanoseconds(1))
        try await waiter.value
        #expect(done.withLock { $0 })
        #expect(!limiter.tryAcquire())
    }

    @Test func cancellingAWaitingAcquireThrowsAtOnceAndTakesNoPermit() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(try RateLimit(permits: 1, every: .seconds(60)), scheduler: clock)
        #expect(limiter.tryAcquire())
        let waiter = Task { try await limiter.acquire() }
        #expect(await clock.waitForPending(1, timeout: .seconds(60)))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(60))
        #expect(limiter.tryAcquire())
    }

    @Test func badRatesThrowNamingTheValue() {
        let permits = #expect(throws: TempoError.self) { try RateLimit(permits: 0, every: .seconds(1)) }
        #expect(permits?.code == .invalidCount && permits?.value == "0")
        let burst = #expect(throws: TempoError.self) { try RateLimit(permits: 1, every: .seconds(1), burst: -3) }
        #expect(burst?.code == .invalidCount && burst?.value == "-3")
        let period = #expect(throws: TempoError.self) { try RateLimit(permits: 1, every: .zero) }
        #expect(period?.code == .invalidInterval)
    }

    @Test(arguments: 0..<4) func randomRequestsMatchAnExactTokenBucket(round: Int) throws {
        let seed = SeededGenerator.seed()
        print("RateLimiterTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let limit = try RateLimit(
            permits: Int.random(in: 1...9, using: &random),
            every: .milliseconds(Int.random(in: 1...700, using: &random)),
            burst: Int.random(in: 1...5, using: &random))
        let limiter = RateLimiter(limit, scheduler: clock)
        var reference = TokenBucketReference(limit, at: .zero)
        var now = Duration.zero
        for step in 0..<20_000 {
            if Int.random(in: 0..<3, using: &random) == 0 {
                // Steps in attoseconds, so rounding anywhere would show.
                let step = Duration(attoseconds: Int128.random(in: 0...400_000_000_000_000_000, using: &random))
                clock.advance(by: step)
                now += step
            }
            let expected = reference.tryAcquire(at: now)
            guard limiter.tryAcquire() == expected else {
                Issue.record("seed \(seed) step \(step) at \(now): limiter disagrees with the token bucket (\(limit))")
                return
            }
        }
    }
}
