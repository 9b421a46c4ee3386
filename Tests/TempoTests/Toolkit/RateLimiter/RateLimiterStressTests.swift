import Synchronization
import Tempo
import TempoTesting
import Testing

@Suite struct RateLimiterStressTests {
    @Test func fourThreadsShareExactlyTheBurstAndThenTheRefill() throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(try RateLimit(permits: 500, every: .seconds(1), burst: 1_000), scheduler: clock)
        let admitted = Atomic<Int>(0)
        Thread.run(4) { _ in
            for _ in 0..<1_000 where limiter.tryAcquire() { admitted.add(1, ordering: .relaxed) }
        }
        #expect(admitted.load(ordering: .relaxed) == 1_000)
        clock.advance(by: .seconds(1))
        Thread.run(4) { _ in
            for _ in 0..<1_000 where limiter.tryAcquire() { admitted.add(1, ordering: .relaxed) }
        }
        #expect(admitted.load(ordering: .relaxed) == 1_500)
    }

    @Test func fourThreadsOnSharedKeysGetExactlyEachKeysBurst() throws {
        let clock = VirtualClock()
        let limiter = try KeyedRateLimiter<Int>(
            try RateLimit(permits: 1, every: .seconds(1), burst: 50), configuration: .immediate, scheduler: clock)
        let admitted = Atomic<Int>(0)
        Thread.run(4) { thread in
            for index in 0..<4_000 where limiter.tryAcquire((index + thread) % 16) {
                admitted.add(1, ordering: .relaxed)
            }
        }
        #expect(admitted.load(ordering: .relaxed) == 16 * 50)
        limiter._checkInvariants()
        clock.advance(by: .seconds(50))
        #expect(limiter.count == 0)
    }
}
