import HeapModule
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Random operations on an ``ExpiringDictionary`` against a plain reference: a `Dictionary` of values and deadlines
/// plus a `Heap` of deadlines (stale heap entries are skipped), on virtual time with whole-millisecond TTLs, so each
/// entry expires exactly at its deadline.
@Suite struct ExpiringDictionaryModelTests {
    struct Reference {
        struct Entry {
            var value: Int
            var ttl: Int
            var deadline: Int
        }

        struct Due: Comparable {
            var deadline: Int
            var key: Int
            static func < (a: Due, b: Due) -> Bool { (a.deadline, a.key) < (b.deadline, b.key) }
        }

        var entries: [Int: Entry] = [:]
        var heap = Heap<Due>()

        mutating func set(_ key: Int, _ value: Int, ttl: Int, now: Int) {
            entries[key] = Entry(value: value, ttl: ttl, deadline: now + ttl)
            heap.insert(Due(deadline: now + ttl, key: key))
        }

        mutating func touch(_ key: Int, now: Int) -> Bool {
            guard let entry = entries[key] else { return false }
            entries[key]!.deadline = now + entry.ttl
            heap.insert(Due(deadline: now + entry.ttl, key: key))
            return true
        }

        /// The keys due at or before `now`, in deadline order.
        mutating func expire(upTo now: Int) -> [(key: Int, deadline: Int)] {
            var due: [(key: Int, deadline: Int)] = []
            while let top = heap.min, top.deadline <= now {
                heap.removeMin()
                if let entry = entries[top.key], entry.deadline == top.deadline {
                    entries[top.key] = nil
                    due.append((top.key, top.deadline))
                }
            }
            return due
        }
    }

    @Test(arguments: 0..<4) func randomOperationsMatchADictionaryPlusAHeap(round: Int) throws {
        let seed = SeededGenerator.seed()
        print("ExpiringDictionaryModelTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let expired = TempoMutex<[(key: Int, value: Int, at: Int)]>([])
        let dictionary = try ExpiringDictionary<Int, Int>(configuration: .immediate, scheduler: clock) {
            [weak clock] key, value in
            guard let clock else { return }
            let now = Int(clock.now(.monotonic).offset.attoseconds / 1_000_000_000_000_000)
            expired.withLock { $0.append((key, value, now)) }
        }
        var reference = Reference()
        var now = 0  // milliseconds
        for step in 0..<3_000 {
            let key = Int.random(in: 0..<48, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3:
                let ttl = Int.random(in: 1...60, using: &random)
                let value = Int.random(in: 0..<1_000, using: &random)
                let old = try dictionary.updateValue(value, forKey: key, expiringAfter: .milliseconds(ttl))
                #expect(old == reference.entries[key]?.value, "seed \(seed) step \(step)")
                reference.set(key, value, ttl: ttl, now: now)
            case 3..<5:
                #expect(dictionary.touch(key) == reference.touch(key, now: now), "seed \(seed) step \(step)")
            case 5:
                #expect(dictionary.removeValue(forKey: key) == reference.entries.removeValue(forKey: key)?.value)
            case 6..<8:
                #expect(dictionary.value(forKey: key) == reference.entries[key]?.value, "seed \(seed) step \(step)")
            default:
                now += Int.random(in: 0...12, using: &random)
                clock.advance(to: TimerInstant(offset: .milliseconds(now)))
                let due = reference.expire(upTo: now)
                let seen = expired.withLock { log in
                    defer { log.removeAll() }
                    return log
                }
                #expect(
                    seen.map { $0.key }.sorted() == due.map { $0.key }.sorted(),
                    "seed \(seed) step \(step): expired \(seen.map { $0.key }), expected \(due.map { $0.key })")
                let deadlines = Dictionary(due.map { ($0.key, $0.deadline) }, uniquingKeysWith: { a, _ in a })
                // Each fired at its own deadline (never early or late on whole-tick deadlines), in deadline order.
                #expect(seen.allSatisfy { deadlines[$0.key] == $0.at }, "seed \(seed) step \(step)")
                #expect(seen.map { $0.at } == seen.map { $0.at }.sorted(), "seed \(seed) step \(step)")
            }
            #expect(dictionary.count == reference.entries.count, "seed \(seed) step \(step)")
            if step % 100 == 0 { dictionary._checkInvariants() }
        }
        dictionary._checkInvariants()
    }

    /// Batches of hundreds to thousands of keys due at one instant, among thousands of live keys (so removals shift
    /// clusters of the index), some touched or replaced since they were armed: the batch path, which fetches rows,
    /// buckets and cluster rows ahead and hashes each key's home once (`WheelKeyTable.prefetch(_:at:homes:)`), expires
    /// exactly what the reference does, and leaves an index that finds every key.
    @Test(arguments: 0..<2) func largeBatchesMatchADictionaryPlusAHeap(round: Int) throws {
        let seed = SeededGenerator.seed()
        print("ExpiringDictionaryModelTests large batches round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let expired = TempoMutex<[Int]>([])
        let dictionary = try ExpiringDictionary<Int, Int>(configuration: .immediate, scheduler: clock) { key, _ in
            expired.withLock { $0.append(key) }
        }
        var reference = Reference()
        var now = 0  // milliseconds
        var largest = 0
        for step in 0..<40_000 {
            let key = Int.random(in: 0..<12_000, using: &random)
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<14:
                // Few distinct TTLs: many keys share a deadline.
                let ttl = [5, 10, 20][Int.random(in: 0..<3, using: &random)]
                try dictionary.updateValue(step, forKey: key, expiringAfter: .milliseconds(ttl))
                reference.set(key, step, ttl: ttl, now: now)
            case 14..<17:
                #expect(dictionary.touch(key) == reference.touch(key, now: now), "seed \(seed) step \(step)")
            case 17:
                #expect(dictionary.removeValue(forKey: key) == reference.entries.removeValue(forKey: key)?.value)
            default:
                guard Int.random(in: 0..<150, using: &random) == 0 else { continue }
                now += 5
                clock.advance(to: TimerInstant(offset: .milliseconds(now)))
                let due = reference.expire(upTo: now).map(\.key)
                let seen = expired.withLock { log in
                    defer { log.removeAll() }
                    return log
                }
                largest = max(largest, seen.count)
                #expect(
                    seen.sorted() == due.sorted(), "seed \(seed) step \(step): \(seen.count) expired, \(due.count) due")
                dictionary._checkInvariants()
            }
        }
        #expect(dictionary.count == reference.entries.count, "seed \(seed)")
        for key in 0..<12_000 {
            #expect(dictionary.value(forKey: key) == reference.entries[key]?.value, "seed \(seed) key \(key)")
        }
        // The point of the test: batches far longer than the prefetch distance (12 tokens).
        #expect(largest > 500, "seed \(seed): the largest batch expired \(largest) keys")
    }
}
