import Benchmark
import Synchronization
import Tempo

/// 1M clients, each with one permit taken, in the keyed limiter and in a Dictionary of hand-written buckets.
final class KeyedFixture {
    let limiter: KeyedRateLimiter<Int>
    let baseline = Mutex<[Int: BaselineTokenBucket.State]>([:])
    let order = shuffledKeys(entries)
    var cursor = 0

    init() throws {
        // A burst no client reaches, refilled at one permit an hour: every request is admitted and every key stays.
        limiter = try KeyedRateLimiter(try RateLimit(permits: 1, every: hour, burst: 1_000_000))
        let now = ContinuousClock.now
        baseline.withLock { buckets in
            for key in 0..<entries {
                _ = limiter.tryAcquire(key)
                buckets[key] = BaselineTokenBucket.State(tokens: 1_000_000 - 1, updated: now)
            }
        }
    }

    func keys() -> ArraySlice<Int> {
        if cursor + batch > order.count { cursor = 0 }
        defer { cursor += batch }
        return order[cursor..<cursor + batch]
    }

    /// The baseline's admission: refill a Double bucket from `ContinuousClock`, take one token.
    func baselineAcquire(_ key: Int) -> Bool {
        let now = ContinuousClock.now
        return baseline.withLock { buckets in
            guard var state = buckets[key] else { return false }
            let elapsed = state.updated.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            state.tokens = min(1_000_000, state.tokens + seconds / 3_600)
            state.updated = now
            guard state.tokens >= 1 else { return false }
            state.tokens -= 1
            buckets[key] = state
            return true
        }
    }
}

func registerRateLimiters() {
    let limiter = RateLimiter(try! RateLimit(permits: 1_000_000_000, every: .seconds(1), burst: 1_000_000_000))
    let baseline = BaselineTokenBucket(perSecond: 1e9, capacity: 1e9)
    Benchmark("RateLimiter/TryAcquire/Uncontended", configuration: perOperation) { benchmark in
        var admitted = 0
        benchmark.startMeasurement()
        for _ in 0..<batch where limiter.tryAcquire() { admitted += 1 }
        benchmark.stopMeasurement()
        blackHole(admitted)
    }
    Benchmark("DoubleTokenBucket/TryAcquire/Uncontended", configuration: perOperation) { benchmark in
        var admitted = 0
        benchmark.startMeasurement()
        for _ in 0..<batch where baseline.tryAcquire() { admitted += 1 }
        benchmark.stopMeasurement()
        blackHole(admitted)
    }

    let keyed = Box<KeyedFixture>()
    let setup: Benchmark.BenchmarkSetupHook = { keyed.value = try KeyedFixture() }
    let teardown: Benchmark.BenchmarkTeardownHook = { keyed.value = nil }
    Benchmark("KeyedRateLimiter/TryAcquire/1M", configuration: perOperation, closure: { benchmark in
        let fixture = keyed.value!
        var admitted = 0
        benchmark.startMeasurement()
        for key in fixture.keys() where fixture.limiter.tryAcquire(key) { admitted += 1 }
        benchmark.stopMeasurement()
        blackHole(admitted)
    }, setup: setup, teardown: teardown)
    Benchmark("DictionaryOfBuckets/TryAcquire/1M", configuration: perOperation, closure: { benchmark in
        let fixture = keyed.value!
        var admitted = 0
        benchmark.startMeasurement()
        for key in fixture.keys() where fixture.baselineAcquire(key) { admitted += 1 }
        benchmark.stopMeasurement()
        blackHole(admitted)
    }, setup: setup, teardown: teardown)
}
