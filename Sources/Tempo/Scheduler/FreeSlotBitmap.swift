/// The free slots of a slot table, as a bitmap with two summary levels, so that the lowest free slot is found with
/// three word reads and the free slots stay packed at the low end of the table.
///
/// Handing out the lowest free slot (instead of the most recently freed one) keeps live slots together at the start
/// of the table, so that when the number of pending actions falls after a burst, the table's last chunks empty out
/// and can be given back. One bit per slot, plus 1/64 of that for the summaries: 128 KiB at a peak of a million
/// slots, kept at its peak size. Not thread-safe: its owner keeps it in a lock.
struct FreeSlotBitmap {
    /// Bit `b` of `words[w]`: slot `64w + b` is free.
    private var words: [UInt64] = []
    /// Bit `b` of `summary[s]`: `words[64s + b]` is not zero.
    private var summary: [UInt64] = []
    /// Bit `b` of `top[t]`: `summary[64t + b]` is not zero.
    private var top: [UInt64] = []

    /// The lowest free slot, or `nil` when none is free.
    ///
    /// - Complexity: O(1) up to 2^18 slots; past that, one word read per 2^18 slots below the answer.
    var lowest: Int? {
        for topIndex in top.indices where top[topIndex] != 0 {
            let summaryIndex = topIndex << 6 | top[topIndex].trailingZeroBitCount
            let wordIndex = summaryIndex << 6 | summary[summaryIndex].trailingZeroBitCount
            return wordIndex << 6 | words[wordIndex].trailingZeroBitCount
        }
        return nil
    }

    /// Whether `slot` is marked free.
    func contains(_ slot: Int) -> Bool {
        let wordIndex = slot >> 6
        return wordIndex < words.count && words[wordIndex] & (1 << (slot & 63)) != 0
    }

    /// Whether every slot in `range` is marked free (`true` for an empty range).
    ///
    /// - Complexity: O(*n*) in the words `range` spans; it stops at the first word with a used slot in `range`.
    func containsAll(_ range: Range<Int>) -> Bool {
        var slot = range.lowerBound
        while slot < range.upperBound {
            let wordIndex = slot >> 6
            guard wordIndex < words.count else { return false }
            let wordStart = wordIndex << 6
            let end = min(range.upperBound - wordStart, 64)
            let below: UInt64 = end == 64 ? .max : (1 << end) - 1
            let mask = below & ~((1 << (slot - wordStart)) - 1)
            guard words[wordIndex] & mask == mask else { return false }
            slot = wordStart + 64
        }
        return true
    }

    /// Marks `slot` free.
    ///
    /// - Complexity: O(1), amortized over the growth of the bitmap.
    mutating func insert(_ slot: Int) {
        let wordIndex = slot >> 6
        if wordIndex >= words.count { extend(toWords: wordIndex + 1) }
        let wasEmpty = words[wordIndex] == 0
        words[wordIndex] |= 1 << (slot & 63)
        guard wasEmpty else { return }
        let summaryIndex = wordIndex >> 6
        let summaryWasEmpty = summary[summaryIndex] == 0
        summary[summaryIndex] |= 1 << (wordIndex & 63)
        if summaryWasEmpty { top[summaryIndex >> 6] |= 1 << (summaryIndex & 63) }
    }

    /// Marks `slot`, which is free, as used.
    ///
    /// - Complexity: O(1).
    mutating func remove(_ slot: Int) {
        assert(contains(slot), "slot \(slot) is not free")
        let wordIndex = slot >> 6
        words[wordIndex] &= ~(1 << (slot & 63))
        guard words[wordIndex] == 0 else { return }
        let summaryIndex = wordIndex >> 6
        summary[summaryIndex] &= ~(1 << (wordIndex & 63))
        if summary[summaryIndex] == 0 { top[summaryIndex >> 6] &= ~(1 << (summaryIndex & 63)) }
    }

    /// Forgets every slot at or above `limit`, a multiple of 64: they are no longer free, as if they did not exist.
    ///
    /// - Complexity: O(*n*) in the words above `limit`.
    mutating func truncate(to limit: Int) {
        precondition(limit >= 0 && limit & 63 == 0, "FreeSlotBitmap truncates at a multiple of 64, not \(limit)")
        let keep = limit >> 6
        while words.count > keep {
            let wordIndex = words.count - 1
            if words[wordIndex] != 0 {
                words[wordIndex] = 0
                let summaryIndex = wordIndex >> 6
                summary[summaryIndex] &= ~(1 << (wordIndex & 63))
                if summary[summaryIndex] == 0 { top[summaryIndex >> 6] &= ~(1 << (summaryIndex & 63)) }
            }
            words.removeLast()
        }
    }

    /// Adds zero words (and summary words) up to `count` words.
    private mutating func extend(toWords count: Int) {
        while words.count < count { words.append(0) }
        let summaries = (count + 63) >> 6
        while summary.count < summaries { summary.append(0) }
        let tops = (summaries + 63) >> 6
        while top.count < tops { top.append(0) }
    }

    /// Checks that every summary bit says whether the word below it is nonzero (debug builds only).
    ///
    /// - Complexity: O(*n*) in debug builds.
    func _checkInvariants() {
        #if DEBUG
        for index in 0..<(summary.count << 6) {
            let nonzero = index < words.count && words[index] != 0
            precondition(nonzero == (summary[index >> 6] & (1 << (index & 63)) != 0), "summary bit \(index) is wrong")
        }
        for index in summary.indices {
            let nonzero = summary[index] != 0
            precondition(nonzero == (top[index >> 6] & (1 << (index & 63)) != 0), "top bit \(index) is wrong")
        }
        #endif
    }
}
