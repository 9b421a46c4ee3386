extension WheelKeyTable {
    /// Checks that the index, the rows and the free list agree; traps otherwise.
    func _checkInvariants() {
        var live = 0
        for chunk in 0..<chunkCount {
            for offset in 0..<Self.chunkSize where Self.header(chunks[chunk] + offset).timer != Self.freeTimer {
                let slot = UInt32(chunk << Self.chunkBits + offset)
                precondition(find(self[slot].key).slot == slot, "row \(slot) is not indexed under its key")
                live += 1
            }
        }
        precondition(live == count, "\(live) live rows, count \(count)")
        precondition(live + free.count == chunkCount << Self.chunkBits, "rows \(live) + free \(free.count)")
        for slot in free { precondition(Self.header(row(slot)).timer == Self.freeTimer, "free row \(slot) is live") }
        var indexed = 0
        for bucket in 0...bucketMask where buckets[bucket] != Self.emptyBucket {
            let slot = buckets[bucket] & rowMask
            precondition(Self.header(row(slot)).timer != Self.freeTimer, "bucket \(bucket) names free row \(slot)")
            precondition(
                buckets[bucket] & ~rowMask == tag(self[slot].key.hashValue), "bucket \(bucket) has a wrong tag")
            // Every bucket from the key's home to its own is full (linear probing finds it).
            var probe = home(self[slot].key)
            while probe != bucket {
                precondition(buckets[probe] != Self.emptyBucket, "a gap before bucket \(bucket)")
                probe = (probe + 1) & bucketMask
            }
            indexed += 1
        }
        precondition(indexed == count, "\(indexed) buckets, count \(count)")
        precondition(count * 4 <= (bucketMask + 1) * 3, "index more than 3/4 full")
    }

    /// Checks ``_checkInvariants()`` and that every entry's timer is armed on `wheel`; traps otherwise. The keyed
    /// toolkit types call it under their lock, while no expiry is being delivered.
    func _checkInvariants(armedOn wheel: TimingWheel) {
        _checkInvariants()
        for bucket in 0...bucketMask where buckets[bucket] != Self.emptyBucket {
            let slot = buckets[bucket] & rowMask
            precondition(
                wheel.isArmedKeyed(self[slot].header.timer, value: token(slot)),
                "the entry in row \(slot) has no armed timer")
        }
    }
}
