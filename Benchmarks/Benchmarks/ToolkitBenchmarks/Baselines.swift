import Synchronization

/// What a user writes without the toolkit, each benchmark's baseline in the same run.

/// A deadline in a baseline's heap, ordered by deadline then key.
struct Due: Comparable {
    var deadline: Int64
    var key: Int
    static func < (a: Due, b: Due) -> Bool { (a.deadline, a.key) < (b.deadline, b.key) }
}

/// A binary min-heap on an array (push and pop only): the heap a user would write.
struct PlainHeap {
    var items: [Due] = []

    mutating func push(_ item: Due) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Due? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < items.count, items[left] < items[smallest] { smallest = left }
                if right < items.count, items[right] < items[smallest] { smallest = right }
                guard smallest != parent else { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }
}

/// An expiring dictionary by hand: a `Dictionary` of values and deadlines plus a heap of deadlines (stale heap
/// entries are skipped when popped). Not locked: the plain operations the bound is stated against.
struct BaselineExpiringDictionary {
    var entries: [Int: (value: Int, deadline: Int64)] = [:]
    var heap = PlainHeap()

    mutating func insert(_ key: Int, _ value: Int, deadline: Int64) {
        entries[key] = (value, deadline)
        heap.push(Due(deadline: deadline, key: key))
    }

    /// Replaces the value of a present key with a new deadline (a pushed heap entry; the old one goes stale).
    mutating func update(_ key: Int, _ value: Int, deadline: Int64) {
        guard entries[key] != nil else { return }
        entries[key] = (value, deadline)
        heap.push(Due(deadline: deadline, key: key))
    }

    mutating func touch(_ key: Int, deadline: Int64) {
        guard entries[key] != nil else { return }
        entries[key]!.deadline = deadline
        heap.push(Due(deadline: deadline, key: key))
    }

    /// Removes the entries due at `now`; returns how many expired.
    mutating func expire(now: Int64) -> Int {
        var expired = 0
        while let top = heap.items.first, top.deadline <= now {
            _ = heap.pop()
            if let entry = entries[top.key], entry.deadline == top.deadline {
                entries[top.key] = nil
                expired += 1
            }
        }
        return expired
    }
}

/// A token bucket by hand: `Double` tokens refilled from `ContinuousClock` under a `Mutex`.
final class BaselineTokenBucket: Sendable {
    struct State {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let rate: Double
    let capacity: Double
    let state: Mutex<State>

    init(perSecond rate: Double, capacity: Double) {
        self.rate = rate
        self.capacity = capacity
        state = Mutex(State(tokens: capacity, updated: .now))
    }

    func tryAcquire() -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            let elapsed = state.updated.duration(to: now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            state.tokens = min(capacity, state.tokens + seconds * rate)
            state.updated = now
            guard state.tokens >= 1 else { return false }
            state.tokens -= 1
            return true
        }
    }
}

/// A keyed rate limiter by hand (issue #44's baseline): the same exact GCRA as `KeyedRateLimiter` (time scaled by
/// `permits`, one permit costing `period` in attoseconds, the theoretical arrival time in an `Int128`) in a
/// `Dictionary` under one `Mutex`, the clock read from `ContinuousClock`. It never forgets a key.
final class BaselineKeyedGCRA: Sendable {
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
