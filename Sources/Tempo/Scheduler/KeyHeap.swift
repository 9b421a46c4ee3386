/// A binary min-heap of ``CompactDeadlineQueue/Key`` in chunked storage (no doubling, no copy when it grows).
struct KeyHeap: ~Copyable {
    private var storage = ChunkedBuffer<CompactDeadlineQueue.Key>(filler: .init(instant: 0, sequence: 0, slot: 0))
    private(set) var count = 0

    var min: CompactDeadlineQueue.Key? { count == 0 ? nil : storage[0] }

    /// The number of keys the storage has room for.
    var capacity: Int { storage.capacity }

    subscript(index: Int) -> CompactDeadlineQueue.Key {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    /// - Complexity: O(log n).
    mutating func insert(_ key: CompactDeadlineQueue.Key) {
        if count == storage.capacity { storage.grow() }
        var child = count
        count += 1
        // Moves parents down into the hole instead of swapping at each level.
        while child > 0 {
            let parent = (child - 1) / 2
            let above = storage[parent]
            guard key.precedes(above) else { break }
            storage[child] = above
            child = parent
        }
        storage[child] = key
    }

    /// - Complexity: O(log n).
    mutating func removeMin() {
        guard count > 0 else { return }
        count -= 1
        if count > 0 {
            let last = storage[count]
            siftDown(last, from: 0, end: count)
        }
        releaseUnusedChunks()
    }

    /// Gives back the last chunk of storage while two chunks' worth of it is unused.
    private mutating func releaseUnusedChunks() {
        let chunkSize = ChunkedBuffer<CompactDeadlineQueue.Key>.chunkSize
        while storage.capacity - count >= 2 * chunkSize { storage.shrink() }
    }

    /// Places `key` in the hole at `start` and sifts it down within `0..<end`.
    private mutating func siftDown(_ key: CompactDeadlineQueue.Key, from start: Int, end: Int) {
        var hole = start
        while true {
            let left = 2 * hole + 1
            guard left < end else { break }
            var child = left
            var smallest = storage[left]
            if left + 1 < end {
                let right = storage[left + 1]
                if right.precedes(smallest) {
                    child = left + 1
                    smallest = right
                }
            }
            guard smallest.precedes(key) else { break }
            storage[hole] = smallest
            hole = child
        }
        storage[hole] = key
    }

    /// Appends every live key due by `limit` (its instant at or before it) to `keys`, in increasing index order (heap
    /// order, not sorted; but a heap whose keys were inserted in ascending order, as keys of equal or increasing
    /// deadlines are, is sorted already, and then so is the result).
    ///
    /// A key is due only if its parent is (a parent never comes after its children), so the due keys are a subtree at
    /// the root. A few are found by walking that subtree level by level (increasing index order: the children of a
    /// node come after those of every node before it). Once the walk has met ``linearScanAfter`` due keys, it is a mass
    /// expiry: the walk's list of indices would cost more than the keys, and the keys are read again in one pass over
    /// the storage from the root, up to the last index a due key's child can have.
    ///
    /// - Complexity: O(k) for k due keys (the pass reads at most twice as many indices as the last due key's).
    func collectLive(
        dueBy limit: Int64, _ sequences: borrowing ChunkedBuffer<UInt32>, into keys: inout [CompactDeadlineQueue.Key]
    ) {
        guard count > 0, storage[0].instant <= limit else { return }
        let start = keys.count
        var pending = [0]
        var head = 0
        while head < pending.count {
            guard head < Self.linearScanAfter else {
                keys.removeSubrange(start...)
                collectLiveInOnePass(dueBy: limit, sequences, into: &keys)
                return
            }
            let index = pending[head]
            head += 1
            let key = storage[index]
            if key.isLive(in: sequences) { keys.append(key) }
            let left = 2 * index + 1
            if left < count && storage[left].instant <= limit { pending.append(left) }
            if left + 1 < count && storage[left + 1].instant <= limit { pending.append(left + 1) }
        }
    }

    /// How many due keys ``collectLive(dueBy:_:into:)`` walks to before it reads the storage in one pass instead.
    static let linearScanAfter = 512

    /// ``collectLive(dueBy:_:into:)`` for a mass expiry: one pass over the storage in index order, which stops past the
    /// last index that a due key's child can have.
    private func collectLiveInOnePass(
        dueBy limit: Int64, _ sequences: borrowing ChunkedBuffer<UInt32>, into keys: inout [CompactDeadlineQueue.Key]
    ) {
        var walk = DueWalk()
        _ = forEachLive(dueBy: limit, sequences, from: &walk) { key in
            keys.append(key)
            return true
        }
    }

    /// Where a resumable one-pass walk (``forEachLive(dueBy:_:from:_:)``) stands: the next index to read, and the last
    /// index that may hold a due key (a child of a due key read so far).
    struct DueWalk {
        var index = 0
        var reach = 0
    }

    /// Passes the live keys due by `limit` to `visit`, in one pass over the storage in index order from `walk`, until
    /// `visit` returns `false` or the pass reads past the last index that can hold a due key. The storage must not
    /// change between calls on one walk (releasing a key's slot only kills the key).
    ///
    /// - Returns: Whether `visit` stopped the pass (the walk can go on from where it stands).
    @inline(__always)
    private func forEachLive(
        dueBy limit: Int64, _ sequences: borrowing ChunkedBuffer<UInt32>, from walk: inout DueWalk,
        _ visit: (CompactDeadlineQueue.Key) -> Bool
    ) -> Bool {
        while walk.index <= walk.reach && walk.index < count {
            let key = storage[walk.index]
            if key.instant <= limit {
                walk.reach = 2 * walk.index + 2
                if key.isLive(in: sequences) && !visit(key) {
                    walk.index += 1
                    return true
                }
            }
            walk.index += 1
        }
        return false
    }

    /// Appends to `keys` the next live keys due by `limit`, at most `atMost` of them, going on from `walk` (see
    /// ``forEachLive(dueBy:_:from:_:)``).
    ///
    /// - Returns: Whether the walk can find more keys (`false` once it read past the last index that can hold one).
    func collectLive(
        dueBy limit: Int64, _ sequences: borrowing ChunkedBuffer<UInt32>, from walk: inout DueWalk, atMost: Int,
        into keys: inout [CompactDeadlineQueue.Key]
    ) -> Bool {
        var found = 0
        return forEachLive(dueBy: limit, sequences, from: &walk) { key in
            keys.append(key)
            found += 1
            return found < atMost
        }
    }

    /// Whether at least `threshold` live keys are due by `limit` (the one-pass walk, stopped at the threshold).
    func hasLive(dueBy limit: Int64, _ sequences: borrowing ChunkedBuffer<UInt32>, atLeast threshold: Int) -> Bool {
        guard threshold > 0 else { return true }
        var walk = DueWalk()
        var found = 0
        return forEachLive(dueBy: limit, sequences, from: &walk) { _ in
            found += 1
            return found < threshold
        }
    }

    /// Restores the heap order of the whole storage.
    ///
    /// - Complexity: O(n).
    mutating func heapify() {
        var index = count / 2 - 1
        while index >= 0 {
            siftDown(storage[index], from: index, end: count)
            index -= 1
        }
    }

    /// Removes every key whose sequence number is not its slot's in `sequences`, and restores the heap order.
    ///
    /// - Complexity: O(n).
    mutating func removeDead(_ sequences: borrowing ChunkedBuffer<UInt32>) {
        var kept = 0
        for index in 0..<count {
            let key = storage[index]
            if key.isLive(in: sequences) {
                storage[kept] = key
                kept += 1
            }
        }
        count = kept
        heapify()
        releaseUnusedChunks()
    }

    /// Sorts the keys in ascending order, in place (a heapsort); an ascending array is still a valid heap.
    ///
    /// - Complexity: O(n log n).
    mutating func sortAscending() {
        // Popping the minimum into the slot freed at the end leaves the keys in descending order.
        var end = count
        while end > 1 {
            let smallest = storage[0]
            end -= 1
            let last = storage[end]
            storage[end] = smallest
            siftDown(last, from: 0, end: end)
        }
        var low = 0
        var high = count - 1
        while low < high {
            storage.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// Checks the heap order (debug builds only; a no-op in release builds).
    ///
    /// - Complexity: O(n) in debug builds.
    func _checkInvariants() {
        #if DEBUG
        for index in stride(from: 1, to: count, by: 1) {
            precondition(!storage[index].precedes(storage[(index - 1) / 2]), "heap order violated at \(index)")
        }
        #endif
    }
}
