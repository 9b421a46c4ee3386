// A second, independent check of ToolkitBenchmarks (issue #44), outside package-benchmark: its own loops, its own
// baselines (written again here, and locked, as a thread-safe user's would be), and the calling thread's CPU time
// (`CLOCK_THREAD_CPUTIME_ID`, so time other processes take from this thread is not counted), the toolkit and its
// baseline alternating round by round. `swift run -c release ToolkitProbe [100000 1000000]` from the Benchmarks
// folder; prints per operation the median CPU ns of each side and the median of the rounds' ratios.
import CProcessStats
import Synchronization
import Tempo
import TempoTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func threadCPUNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The same exact GCRA as `KeyedRateLimiter` (Int128 theoretical arrival times, time scaled by permits) in a
/// `Dictionary` under a `Mutex`; never forgets a key.
final class LockedGCRA: Sendable {
    let increment: Int128
    let capacity: Int128
    let scale: Int128
    let origin = ContinuousClock.now
    let tats = Mutex<[Int: Int128]>([:])

    init(permits: Int, every period: Duration, burst: Int) {
        increment = period.attoseconds
        capacity = Int128(burst) * increment
        scale = Int128(permits)
    }

    func tryAcquire(_ key: Int) -> Bool {
        let now = origin.duration(to: .now).attoseconds &* scale
        return tats.withLock { tats in
            let next = max(tats[key] ?? now, now) + increment
            guard next <= now + capacity else { return false }
            tats[key] = next
            return true
        }
    }
}

/// A `Dictionary` of (value, deadline, ttl) plus a binary min-heap of (deadline, key) under a `Mutex`; stale heap
/// entries are skipped when popped.
final class LockedExpiringDictionary: Sendable {
    struct Entry {
        var value: Int
        var deadline: Int64
        var ttl: Int64
    }

    struct State {
        var entries: [Int: Entry] = [:]
        var heap: [(deadline: Int64, key: Int)] = []

        mutating func push(_ deadline: Int64, _ key: Int) {
            heap.append((deadline, key))
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child].deadline < heap[parent].deadline else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }

        mutating func popMin() -> (deadline: Int64, key: Int) {
            let first = heap[0]
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                var parent = 0
                while true {
                    let left = 2 * parent + 1
                    var smallest = parent
                    if left < heap.count, heap[left].deadline < heap[smallest].deadline { smallest = left }
                    if left + 1 < heap.count, heap[left + 1].deadline < heap[smallest].deadline { smallest = left + 1 }
                    guard smallest != parent else { break }
                    heap.swapAt(parent, smallest)
                    parent = smallest
                }
            }
            return first
        }
    }

    let origin = ContinuousClock.now
    let state = Mutex(State())

    func now() -> Int64 { Int64(origin.duration(to: .now).attoseconds / 1_000_000_000) }

    func updateValue(_ value: Int, forKey key: Int, ttl: Int64) {
        let deadline = now() + ttl
        state.withLock { state in
            state.entries[key] = Entry(value: value, deadline: deadline, ttl: ttl)
            state.push(deadline, key)
        }
    }

    func touch(_ key: Int) -> Bool {
        let now = now()
        return state.withLock { state in
            guard let ttl = state.entries[key]?.ttl else { return false }
            state.entries[key]!.deadline = now + ttl
            state.push(now + ttl, key)
            return true
        }
    }

    /// Removes the entries due at `now` (nanoseconds since the origin); returns how many.
    func expire(now: Int64) -> Int {
        state.withLock { state in
            var expired = 0
            while let top = state.heap.first, top.deadline <= now {
                _ = state.popMin()
                if let entry = state.entries[top.key], entry.deadline == top.deadline {
                    state.entries[top.key] = nil
                    expired += 1
                }
            }
            return expired
        }
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sizes = arguments.isEmpty ? [100_000, 1_000_000] : arguments
let rounds = 15
let batch = 100_000
let hour = Duration.seconds(3_600)
let hourNanoseconds: Int64 = 3_600_000_000_000

/// The calling thread's CPU nanoseconds that `body` takes.
func measured(_ body: () -> Void) -> Int64 {
    let start = threadCPUNanoseconds()
    body()
    return threadCPUNanoseconds() - start
}

/// Runs `ours` and `baseline` alternately for `rounds` rounds (which goes first alternates too), each returning the
/// CPU nanoseconds it measured (see ``measured(_:)``); prints the median ns per operation of each and the median of
/// the rounds' ratios.
func compare(
    _ name: String, size: Int, operations: Int, ours: () -> Int64, baseline: () -> Int64
) {
    var oursNs: [Double] = []
    var baseNs: [Double] = []
    var ratios: [Double] = []
    for round in 0..<rounds {
        var pair = [0.0, 0.0]
        for side in (round % 2 == 0 ? [0, 1] : [1, 0]) {
            pair[side] = Double(side == 0 ? ours() : baseline()) / Double(operations)
        }
        oursNs.append(pair[0])
        baseNs.append(pair[1])
        ratios.append(pair[0] / pair[1])
    }
    let line =
        "\(name) at \(size): toolkit \(Int(median(oursNs).rounded())) ns, baseline \(Int(median(baseNs).rounded()))"
    print(line + " ns, ratio \((median(ratios) * 100).rounded() / 100)x (\(rounds) rounds, CPU time per operation)")
}

for size in sizes {
    var generator = SplitMix(state: 7)
    let order = (0..<size).shuffled(using: &generator)
    var cursor = 0
    func nextKeys() -> ArraySlice<Int> {
        let count = min(batch, size)
        if cursor + count > order.count { cursor = 0 }
        defer { cursor += count }
        return order[cursor..<cursor + count]
    }

    // 1. KeyedRateLimiter.tryAcquire against the locked Dictionary of GCRA states, every key held (one permit an hour,
    //    a burst never reached).
    do {
        let before = cprocessstats_malloc_bytes_in_use()
        let limiter = try! KeyedRateLimiter<Int>(try! RateLimit(permits: 1, every: hour, burst: 1_000_000))
        for key in 0..<size { _ = limiter.tryAcquire(key) }
        let middle = cprocessstats_malloc_bytes_in_use()
        let baseline = LockedGCRA(permits: 1, every: hour, burst: 1_000_000)
        for key in 0..<size { _ = baseline.tryAcquire(key) }
        let after = cprocessstats_malloc_bytes_in_use()
        print(
            "bytes per key at \(size): KeyedRateLimiter \(Int((Double(middle) - Double(before)) / Double(size))),"
                + " baseline \(Int((Double(after) - Double(middle)) / Double(size))) (mallinfo2)")
        var admitted = 0
        let keys = Array(nextKeys())
        compare("KeyedRateLimiter.tryAcquire", size: size, operations: keys.count) {
            measured { for key in keys where limiter.tryAcquire(key) { admitted += 1 } }
        } baseline: {
            measured { for key in keys where baseline.tryAcquire(key) { admitted += 1 } }
        }
        precondition(admitted == 2 * rounds * keys.count)
    }

    // 2. ExpiringDictionary updateValue of present keys and touch, against the locked Dictionary plus heap.
    do {
        let before = cprocessstats_malloc_bytes_in_use()
        let dictionary = try! ExpiringDictionary<Int, Int>(configuration: .init(delivery: .immediate))
        for key in 0..<size { try! dictionary.updateValue(key, forKey: key, expiringAfter: hour) }
        let middle = cprocessstats_malloc_bytes_in_use()
        let baseline = LockedExpiringDictionary()
        for key in 0..<size { baseline.updateValue(key, forKey: key, ttl: hourNanoseconds) }
        let after = cprocessstats_malloc_bytes_in_use()
        print(
            "bytes per entry at \(size): ExpiringDictionary \(Int((Double(middle) - Double(before)) / Double(size))),"
                + " baseline \(Int((Double(after) - Double(middle)) / Double(size))) (mallinfo2)")
        let keys = Array(nextKeys())
        compare("ExpiringDictionary.updateValue", size: size, operations: keys.count) {
            measured { for key in keys { try! dictionary.updateValue(key &+ 1, forKey: key, expiringAfter: hour) } }
        } baseline: {
            measured { for key in keys { baseline.updateValue(key &+ 1, forKey: key, ttl: hourNanoseconds) } }
        }
        var touched = 0
        compare("ExpiringDictionary.touch", size: size, operations: keys.count) {
            measured { for key in keys where dictionary.touch(key) { touched += 1 } }
        } baseline: {
            measured { for key in keys where baseline.touch(key) { touched += 1 } }
        }
        precondition(touched == 2 * rounds * keys.count)
    }

    // 3. Expiry on virtual time: `size` entries an hour out, then per round 10,000 entries due in 1 ms; measured: the
    //    clock moving past them (the wheel's driver run and 10,000 expiries) against popping them off the heap.
    do {
        let clock = VirtualClock()
        let dictionary = try! ExpiringDictionary<Int, Int>(configuration: .init(delivery: .immediate), scheduler: clock)
        let baseline = LockedExpiringDictionary()
        for key in 0..<size {
            try! dictionary.updateValue(key, forKey: key, expiringAfter: hour)
            baseline.updateValue(key, forKey: key, ttl: hourNanoseconds)
        }
        let due = 10_000
        var next = size
        var baseNext = size
        var baseNow: Int64 = 0
        compare("ExpiringDictionary expiry", size: size, operations: due) {
            for key in next..<next + due {
                try! dictionary.updateValue(key, forKey: key, expiringAfter: .milliseconds(1))
            }
            next += due
            defer { precondition(dictionary.count == size) }
            return measured { clock.advance(by: .milliseconds(2)) }
        } baseline: {
            baseNow += 2_000_000
            baseline.state.withLock { state in
                for key in baseNext..<baseNext + due {
                    state.entries[key] = .init(value: key, deadline: baseNow - 1_000_000, ttl: 1_000_000)
                    state.push(baseNow - 1_000_000, key)
                }
            }
            baseNext += due
            var expired = 0
            defer { precondition(expired == due) }
            return measured { expired = baseline.expire(now: baseNow) }
        }
    }
}
