import Benchmark
import Synchronization
import Tempo

/// `keys` clients, each with one permit taken, in the keyed limiter, in a Dictionary of hand-written buckets and in
/// a Dictionary running the same GCRA (issue #44).
final class KeyedFixture {
    let limiter: KeyedRateLimiter<Int>
    let baseline = Mutex<[Int: BaselineTokenBucket.State]>([:])
    // A burst no client reaches, refilled at one permit an hour: every request is admitted and every key stays.
    let gcra = BaselineKeyedGCRA(permits: 1, every: hour, burst: 1_000_000)
    let order: [Int]
    var cursor = 0

    init(keys: Int) throws {
        order = shuffledKeys(keys)
        limiter = try KeyedRateLimiter(try RateLimit(permits: 1, every: hour, burst: 1_000_000))
        let now = ContinuousClock.now
        baseline.withLock { buckets in
            for key in 0..<keys {
                _ = limiter.tryAcquire(key)
                _ = gcra.tryAcquire(key)
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

    for (keys, label) in [(100_000, "100k"), (entries, "1M")] {
        let keyed = Box<KeyedFixture>()
        let setup: Benchmark.BenchmarkSetupHook = { keyed.value = try KeyedFixture(keys: keys) }
        let teardown: Benchmark.BenchmarkTeardownHook = { keyed.value = nil }
        func measure(_ name: String, _ acquire: @escaping (KeyedFixture, Int) -> Bool) {
            Benchmark("\(name)/TryAcquire/\(label)", configuration: perOperation, closure: { benchmark in
                let fixture = keyed.value!
                var admitted = 0
                benchmark.startMeasurement()
                for key in fixture.keys() where acquire(fixture, key) { admitted += 1 }
                benchmark.stopMeasurement()
                blackHole(admitted)
            }, setup: setup, teardown: teardown)
        }
        measure("KeyedRateLimiter") { $0.limiter.tryAcquire($1) }
        measure("MutexDictionaryGCRA") { $0.gcra.tryAcquire($1) }
        measure("DictionaryOfBuckets") { $0.baselineAcquire($1) }
    }
}
