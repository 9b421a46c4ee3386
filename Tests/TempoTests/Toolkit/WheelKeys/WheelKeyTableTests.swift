import Testing

@testable import Tempo

/// The keyed toolkit's table on its own: random inserts and removals against a `Dictionary`, with keys whose hashes
/// collide (long probe clusters that wrap around the index) and with plain keys (index growth, many row chunks).
@Suite struct WheelKeyTableTests {
    /// A key with one of `buckets` hash values.
    struct CollidingKey: Hashable {
        let id: Int
        let buckets: Int
        static func == (a: Self, b: Self) -> Bool { a.id == b.id }
        func hash(into hasher: inout Hasher) { hasher.combine(id % buckets) }
    }

    /// Runs `operations` random inserts and removals of keys `0..<keys` (made by `makeKey`) on a table and a
    /// `Dictionary`, checking lookups, tokens and the table's invariants along the way.
    func randomOperationsMatchADictionary<Key: Hashable>(
        seed: UInt64, keys: Int, operations: Int, untaggedRows: Int = 1 << 27, makeKey: (Int) -> Key
    ) {
        var random = SeededGenerator(seed: seed)
        var table = WheelKeyTable<Key, Int>(untaggedRows: untaggedRows)
        var reference: [Key: Int] = [:]
        var tokens: [Key: UInt64] = [:]
        var staleTokens: [UInt64] = []
        for step in 0..<operations {
            let key = makeKey(Int.random(in: 0..<keys, using: &random))
            if let slot = table.slot(of: key) {
                #expect(reference[key] == table[slot].payload, "seed \(seed), step \(step)")
                #expect(table.resolve(tokens[key]!) == slot, "seed \(seed), step \(step)")
                if Bool.random(using: &random) {
                    let removed = table.remove(slot)
                    #expect(removed.key == key && removed.payload == reference.removeValue(forKey: key))
                    staleTokens.append(tokens.removeValue(forKey: key)!)
                }
            } else {
                #expect(reference[key] == nil, "seed \(seed), step \(step): key lost")
                table.insert(key, step) { _ in 7 }  // any wheel index but the free mark
                reference[key] = step
                let slot = table.slot(of: key)!
                tokens[key] = table.token(slot)
            }
            #expect(table.count == reference.count)
            if step % 997 == 0 { table._checkInvariants() }
        }
        table._checkInvariants()
        for (key, value) in reference { #expect(table.slot(of: key).map { table[$0].payload } == value) }
        for token in staleTokens { #expect(table.resolve(token) == nil, "seed \(seed): a stale token resolves") }
    }

    @Test(arguments: 0..<3) func collidingKeysMatchADictionary(seed: UInt64) {
        randomOperationsMatchADictionary(seed: seed, keys: 300, operations: 20_000) {
            CollidingKey(id: $0, buckets: 5)
        }
    }

    @Test(arguments: 0..<2) func manyKeysMatchADictionaryAcrossIndexGrowth(seed: UInt64) {
        randomOperationsMatchADictionary(seed: seed, keys: 6_000, operations: 40_000) { $0 }
    }

    @Test func bucketsThatDropTheirTagsWhileFilledStillMatchADictionary() {
        // Tags off at 4,096 rows: the index is rebuilt as plain rows in the middle of the run.
        randomOperationsMatchADictionary(seed: 9, keys: 8_000, operations: 30_000, untaggedRows: 4_096) { $0 }
        randomOperationsMatchADictionary(seed: 10, keys: 5_000, operations: 30_000, untaggedRows: 2_048) {
            CollidingKey(id: $0, buckets: 3_000)
        }
    }

    @Test func aRowFreedAndReusedGetsANewTokenAndTheOldOneIsStale() {
        var table = WheelKeyTable<String, Int>()
        table.insert("a", 1) { _ in 3 }
        let slot = table.slot(of: "a")!
        let old = table.token(slot)
        table.remove(slot)
        #expect(table.resolve(old) == nil)
        table.insert("b", 2) { _ in 4 }
        #expect(table.slot(of: "b") == slot)  // the freed row is reused
        #expect(table.resolve(old) == nil)
        #expect(table.resolve(table.token(slot)) == slot)
        #expect(table[slot].header.timer == 4)
    }

    @Test func aThrowingArmKeepsNothing() {
        struct Refused: Error {}
        var table = WheelKeyTable<Int, Int>()
        var threw = false
        do { try table.insert(1, 1) { _ throws(Refused) in throw Refused() } } catch { threw = true }
        #expect(threw)
        #expect(table.count == 0 && table.slot(of: 1) == nil)
        table._checkInvariants()
    }

    /// The index hint that `tryAcquire`, `touch` and `updateValue` read outside the lock to prefetch a key's bucket
    /// follows the index through every rebuild (growth, and tags turned off), so the prefetch fetches the live buckets.
    @Test func theIndexHintFollowsEveryRebuildOfTheIndex() throws {
        let limiter = try KeyedRateLimiter<Int>(
            try RateLimit(permits: 1, every: .seconds(3600)), configuration: .init(delivery: .immediate))
        let dictionary = try ExpiringDictionary<Int, Int>(configuration: .init(delivery: .immediate))
        func matches(_ handler: WheelKeyBatchHandler<Int, some Sendable, some Sendable>) -> Bool {
            let published = (
                handler.indexHint.buckets.load(ordering: .relaxed), handler.indexHint.mask.load(ordering: .relaxed)
            )
            let actual = handler.state.withLock { $0.indexHint }
            return published == actual
        }
        var rebuilds = 0
        var lastMask = limiter.evictor.state.withLock { $0.indexHint.mask }
        for key in 0..<5_000 {
            #expect(limiter.tryAcquire(key))
            try dictionary.updateValue(key, forKey: key, expiringAfter: .seconds(3600))
            let mask = limiter.evictor.state.withLock { $0.indexHint.mask }
            if mask != lastMask {
                rebuilds += 1
                lastMask = mask
            }
            #expect(matches(limiter.evictor), "after key \(key)")
            #expect(matches(dictionary.expirer), "after key \(key)")
        }
        #expect(rebuilds >= 8, "the index grew \(rebuilds) times")
    }
}
