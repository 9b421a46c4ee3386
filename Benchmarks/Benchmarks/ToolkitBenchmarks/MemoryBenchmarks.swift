import Benchmark
import CProcessStats
import Synchronization
import Tempo

/// Bytes per entry from glibc's mallinfo2 before and after filling 1M entries, ours and the baseline's, each in a
/// benchmark of its own (one iteration; the structure is released before the next).
func registerMemory() {
    func bytes(_ name: String, keys: Int = entries, _ fill: @escaping () throws -> AnyObject) {
        Benchmark(name, configuration: once) { benchmark in
            let before = cprocessstats_malloc_bytes_in_use()
            let filled = try fill()
            let after = cprocessstats_malloc_bytes_in_use()
            withExtendedLifetime(filled) {}
            benchmark.measurement(bytesPerEntry, (after - before) / keys)
        }
    }
    bytes("ExpiringDictionary/BytesPerEntry/1M") {
        let dictionary = try ExpiringDictionary<Int, Int>()
        for key in 0..<entries { try dictionary.updateValue(key, forKey: key, expiringAfter: hour) }
        return dictionary
    }
    bytes("DictionaryPlusHeap/BytesPerEntry/1M") {
        let baseline = Box<BaselineExpiringDictionary>()
        baseline.value = BaselineExpiringDictionary()
        for key in 0..<entries { baseline.value!.insert(key, key, deadline: 3_600_000_000_000) }
        return baseline
    }
    for (keys, label) in [(100_000, "100k"), (entries, "1M")] {
        bytes("KeyedRateLimiter/BytesPerIdleKey/\(label)", keys: keys) {
            let limiter = try KeyedRateLimiter<Int>(try RateLimit(permits: 1, every: hour))
            for key in 0..<keys { _ = limiter.tryAcquire(key) }
            return limiter
        }
        bytes("MutexDictionaryGCRA/BytesPerIdleKey/\(label)", keys: keys) {
            let limiter = BaselineKeyedGCRA(permits: 1, every: hour, burst: 1)
            for key in 0..<keys { _ = limiter.tryAcquire(key) }
            return limiter
        }
    }
    bytes("DictionaryOfBuckets/BytesPerIdleKey/1M") {
        let buckets = Box<[Int: BaselineTokenBucket.State]>()
        buckets.value = [:]
        let now = ContinuousClock.now
        for key in 0..<entries { buckets.value![key] = BaselineTokenBucket.State(tokens: 0, updated: now) }
        return buckets
    }
}
