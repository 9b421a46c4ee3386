extension WheelCore {
    /// Checks the wheel's structural invariants; traps with a message when one is broken.
    ///
    /// Checked: every list is a consistent circular list; a slot's bit is set exactly when its list is
    /// non-empty; every armed entry sits in a list that comes due after ``now`` (the expired list excepted)
    /// and no later than its own due tick; ``count`` matches the armed entries and the free list holds the rest.
    ///
    /// Checks run in debug builds only; in release builds this is a no-op.
    ///
    /// - Complexity: O(capacity) in debug builds.
    func _checkInvariants() {
        #if DEBUG
        var seen = 0
        for list in 0..<Self.sentinelCount {
            let sentinel = UInt32(list)
            var previous = sentinel
            var index = entry(sentinel).pointee.next
            var length = 0
            while index != sentinel {
                precondition(Int(index) >= Self.sentinelCount && Int(index) < capacity, "bad link \(index)")
                precondition(entry(index).pointee.prev == previous, "broken prev link at \(index)")
                precondition(entry(index).pointee.sequence != 0, "free entry \(index) is linked")
                precondition(
                    isProvisional(index) == (sentinel == Self.provisionalList),
                    "entry \(index) is provisional: \(isProvisional(index)), in list \(list)")
                checkPlacement(index, list: sentinel)
                previous = index
                index = entry(index).pointee.next
                length += 1
                precondition(length <= count, "cycle in list \(list)")
            }
            precondition(entry(sentinel).pointee.prev == previous, "broken tail of list \(list)")
            if sentinel < Self.expiredList {
                let bit = occupied[list >> Self.slotBits] & (1 << UInt64(list & 63)) != 0
                precondition(bit == (length > 0), "occupancy bit of slot \(list) is \(bit) with \(length) entries")
            }
            seen += length
        }
        precondition(seen == count, "\(seen) linked entries but count is \(count)")
        var free = 0
        var index = freeHead
        while index != Self.noEntry {
            precondition(entry(index).pointee.sequence == 0, "armed entry \(index) on the free list")
            precondition(
                actionChunks.map { actionSlot(index, in: $0).pointee == nil } ?? true,
                "free entry \(index) holds a closure")
            index = entry(index).pointee.next
            free += 1
            precondition(free <= capacity, "cycle in the free list")
        }
        precondition(free + count + Self.sentinelCount == capacity, "\(free) free + \(count) armed != \(capacity)")
        #endif
    }

    #if DEBUG
    private func checkPlacement(_ index: UInt32, list: UInt32) {
        let due = dueTick(entry(index).pointee.deadline)
        switch list {
        case Self.expiredList, Self.provisionalList:
            return
        case Self.overflowList:
            precondition(overflowBoundary <= due, "overflow entry \(index) due at \(due) before \(overflowBoundary)")
        default:
            let level = Int(list) >> Self.slotBits
            let slot = Int64(list & 63)
            let shift = level * Self.slotBits
            let base = now & ~((1 << (shift + Self.slotBits)) - 1)
            let comesDue = base | (slot << shift)
            precondition(comesDue > now, "slot \(level):\(slot) of entry \(index) came due at \(comesDue) <= \(now)")
            precondition(comesDue <= due, "entry \(index) due at \(due) sits in a slot due later, at \(comesDue)")
        }
    }
    #endif
}
