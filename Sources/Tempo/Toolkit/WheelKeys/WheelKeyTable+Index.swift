public import Synchronization

/// The index of ``WheelKeyTable``: open addressing with linear probing over buckets of 4 bytes; at most 3/4 full, so a
/// million keys take 2^21 buckets (8 MiB, about 8 bytes per key).
///
/// A bucket holds a row and, while the table has fewer than 2^27 rows, 5 more bits of the key's hash in its top bits
/// (the tag), so a probe reads the row (a cache miss) of only 1 in 32 other keys it passes: a lookup costs the bucket
/// and the key's own row. Removal shifts the following buckets of the cluster back (no tombstones), so lookups never
/// slow down with churn.
extension WheelKeyTable {
    @inlinable static var emptyBucket: UInt32 { .max }
    @inlinable static var minimumBuckets: Int { 16 }
    /// The bits of a bucket that hold the row while buckets carry tags.
    @inlinable static var taggedRowBits: UInt32 { 27 }

    /// The part of a bucket that names the row: all of it once the table outgrew tags.
    @inlinable
    var rowMask: UInt32 { tagged ? (1 << Self.taggedRowBits) - 1 : .max }

    /// The tag of `hash` in place (its top 5 bits above the row bits), or 0 without tags.
    @inlinable
    @inline(__always)
    func tag(_ hash: Int) -> UInt32 {
        tagged ? UInt32(truncatingIfNeeded: UInt(bitPattern: hash) >> 59) << Self.taggedRowBits : 0
    }

    /// The bucket `key` hashes to.
    @inlinable
    @inline(__always)
    func home(_ key: Key) -> Int {
        key.hashValue & bucketMask
    }

    /// The bucket holding `key` and its slot, or the empty bucket where it would go and `nil`; and the key's bucket
    /// entry but the row (its tag).
    @inlinable
    func find(_ key: Key) -> (bucket: Int, slot: UInt32?, tag: UInt32) {
        find(key, hash: key.hashValue)
    }

    /// ``find(_:)`` with the key's `hashValue`, when the caller has it (``prefetchBucket(hash:hint:)``).
    @inlinable
    func find(_ key: Key, hash: Int) -> (bucket: Int, slot: UInt32?, tag: UInt32) {
        let tag = tag(hash)
        let rowMask = rowMask
        var bucket = hash & bucketMask
        while true {
            let entry = buckets[bucket]
            if entry == Self.emptyBucket { return (bucket, nil, tag) }
            if entry & ~rowMask == tag, row(entry & rowMask).pointee.key == key {
                return (bucket, entry & rowMask, tag)
            }
            bucket = (bucket + 1) & bucketMask
        }
    }

    /// Makes room for one more key: doubles the buckets when one more would fill more than 3/4 of them.
    @inlinable
    mutating func reserveOne() {
        if (count + 1) * 4 > (bucketMask + 1) * 3 { rebuildIndex(buckets: (bucketMask + 1) * 2) }
    }

    /// Files every live row again in `bucketCount` buckets.
    @usableFromInline
    mutating func rebuildIndex(buckets bucketCount: Int) {
        buckets.deallocate()
        buckets = .allocate(capacity: bucketCount)
        buckets.initialize(repeating: Self.emptyBucket, count: bucketCount)
        bucketMask = bucketCount - 1
        for chunk in 0..<chunkCount {
            let rows = chunks[chunk]
            for offset in 0..<Self.chunkSize where Self.header(rows + offset).timer != Self.freeTimer {
                let hash = rows[offset].key.hashValue
                var bucket = hash & bucketMask
                while buckets[bucket] != Self.emptyBucket { bucket = (bucket + 1) & bucketMask }
                buckets[bucket] = tag(hash) | UInt32(chunk << Self.chunkBits + offset)
            }
        }
    }

    /// Where the buckets are and their mask, for ``prefetchBucket(hash:hint:)``: what an owner publishes in its
    /// ``WheelKeyIndexHint`` (``publish(to:)``).
    @inlinable
    var indexHint: (buckets: UInt, mask: Int) { (UInt(bitPattern: buckets), bucketMask) }

    /// Publishes ``indexHint`` to `hint` if it changed (after an insert path's ``reserveOne()``, which may have rebuilt
    /// the index); called under the owner's lock.
    @inlinable
    @inline(__always)
    func publish(to hint: borrowing WheelKeyIndexHint) {
        let (buckets, mask) = indexHint
        if hint.buckets.load(ordering: .relaxed) != buckets { hint.buckets.store(buckets, ordering: .relaxed) }
        if hint.mask.load(ordering: .relaxed) != mask { hint.mask.store(mask, ordering: .relaxed) }
    }

    /// Starts fetching the home bucket of a key with hash `hash`, from a `hint` read outside the owner's lock, so
    /// that the miss overlaps what comes before the lookup (the clock read, taking the lock). A stale hint (the index
    /// was rebuilt since; the two halves may even be of different indexes) fetches a line that may have been freed or
    /// never held buckets: harmless, a prefetch never faults and changes nothing.
    @inlinable
    @inline(__always)
    static func prefetchBucket(hash: Int, hint: borrowing WheelKeyIndexHint) {
        let buckets = hint.buckets.load(ordering: .relaxed)
        guard buckets != 0 else { return }
        let address = buckets &+ UInt(bitPattern: hash & hint.mask.load(ordering: .relaxed)) &* 4
        prefetchLinesForWrite(address, address)
    }

    /// Removes `slot`, the row of `key`, from the index, shifting the rest of its cluster back; `keyHome` is the key's
    /// home bucket when the caller knows it (-1: hashed here).
    @inlinable
    mutating func unindex(_ key: Key, slot: UInt32, home keyHome: Int = -1) {
        let rowMask = rowMask
        var hole = keyHome >= 0 ? keyHome : home(key)
        while buckets[hole] & rowMask != slot { hole = (hole + 1) & bucketMask }
        var next = hole
        while true {
            next = (next + 1) & bucketMask
            let moving = buckets[next]
            if moving == Self.emptyBucket { break }
            // `moving` may fill the hole unless its home lies cyclically in (hole, next].
            let distanceToNext = (next - home(row(moving & rowMask).pointee.key)) & bucketMask
            if distanceToNext >= (next - hole) & bucketMask {
                buckets[hole] = moving
                hole = next
            }
        }
        buckets[hole] = Self.emptyBucket
    }
}
