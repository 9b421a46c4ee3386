/// The index of ``WheelKeyTable``: open addressing with linear probing over buckets of 4 bytes, each a row or
/// ``emptyBucket``; at most 3/4 full, so a million keys take 2^21 buckets (8 MiB, about 8 bytes per key). A lookup
/// hashes the key once and compares keys in the rows its probe visits (1.5 on average at half load). Removal shifts
/// the following buckets of the cluster back (no tombstones), so lookups never slow down with churn.
extension WheelKeyTable {
    @inlinable static var emptyBucket: UInt32 { .max }
    @inlinable static var minimumBuckets: Int { 16 }

    /// The bucket `key` hashes to.
    @inlinable
    @inline(__always)
    func home(_ key: Key) -> Int {
        key.hashValue & bucketMask
    }

    /// The bucket holding `key` and its slot, or the empty bucket where it would go and `nil`.
    @inlinable
    func find(_ key: Key) -> (bucket: Int, slot: UInt32?) {
        var bucket = home(key)
        while true {
            let slot = buckets[bucket]
            if slot == Self.emptyBucket { return (bucket, nil) }
            if row(slot).pointee.key == key { return (bucket, slot) }
            bucket = (bucket + 1) & bucketMask
        }
    }

    /// Makes room for one more key: doubles the buckets when one more would fill more than 3/4 of them.
    @inlinable
    mutating func reserveOne() {
        if (count + 1) * 4 > (bucketMask + 1) * 3 { growIndex() }
    }

    /// Doubles the buckets and files every live row again.
    @usableFromInline
    mutating func growIndex() {
        let bucketCount = (bucketMask + 1) * 2
        buckets.deallocate()
        buckets = .allocate(capacity: bucketCount)
        buckets.initialize(repeating: Self.emptyBucket, count: bucketCount)
        bucketMask = bucketCount - 1
        for chunk in 0..<chunkCount {
            let rows = chunks[chunk]
            for offset in 0..<Self.chunkSize where Self.header(rows + offset).timer != Self.freeTimer {
                var bucket = home(rows[offset].key)
                while buckets[bucket] != Self.emptyBucket { bucket = (bucket + 1) & bucketMask }
                buckets[bucket] = UInt32(chunk << Self.chunkBits + offset)
            }
        }
    }

    /// Removes `slot`, the row of `key`, from the index, shifting the rest of its cluster back.
    @inlinable
    mutating func unindex(_ key: Key, slot: UInt32) {
        var hole = home(key)
        while buckets[hole] != slot { hole = (hole + 1) & bucketMask }
        var next = hole
        while true {
            next = (next + 1) & bucketMask
            let moving = buckets[next]
            if moving == Self.emptyBucket { break }
            // `moving` may fill the hole unless its home lies cyclically in (hole, next].
            let distanceToNext = (next - home(row(moving).pointee.key)) & bucketMask
            if distanceToNext >= (next - hole) & bucketMask {
                buckets[hole] = moving
                hole = next
            }
        }
        buckets[hole] = Self.emptyBucket
    }
}
