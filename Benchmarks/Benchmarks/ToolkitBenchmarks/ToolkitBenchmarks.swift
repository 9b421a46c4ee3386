import Benchmark
import CProcessStats
import Synchronization
import Tempo
import TempoTesting

// The wheel's toolkit against what a user writes by hand, each pair in the same run (see README.md):
// ExpiringDictionary vs a Dictionary plus a heap push; RateLimiter.tryAcquire vs a Double token bucket under a Mutex;
// KeyedRateLimiter vs a Dictionary of such buckets; bytes per entry and per idle key from mallinfo2.

let entries = 1_000_000
let batch = 1_000
let hour = Duration.seconds(3_600)

var perOperation: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 1,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 200
    )
}

let bytesPerEntry = BenchmarkMetric.custom("bytesPerEntry", useScalingFactor: false)

var once: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [bytesPerEntry], warmupIterations: 0, maxDuration: .seconds(1), maxIterations: 1)
}

/// Keys in a fixed random order (same seed every run), to touch and look up at random places.
func shuffledKeys(_ count: Int) -> [Int] {
    var generator = SplitMix(seed: 7)
    return (0..<count).shuffled(using: &generator)
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let start = ContinuousClock.now

/// Nanoseconds since the benchmark process started: the clock reading of the baselines.
@inline(__always)
func nanoseconds() -> Int64 {
    Int64(start.duration(to: .now).attoseconds / 1_000_000_000)
}

// @unchecked Sendable is safe here: each benchmark uses its box from the one thread that runs it (setup, body,
// teardown in turn), so `value` is never touched from two threads at once.
final class Box<T>: @unchecked Sendable {
    var value: T?
}

let benchmarks: @Sendable () -> Void = {
    registerExpiringDictionary()
    registerRateLimiters()
    registerMemory()
}
