extension WheelCore {
    /// Files an entry due at tick `due` relative to ``now``; returns the tick its list comes due.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    mutating func place(_ index: UInt32, due: Int64) -> Int64 {
        if due <= now {
            link(index, into: Self.expiredList)
            return now
        }
        let differing = UInt64(truncatingIfNeeded: due ^ now) | 63
        let level = (63 - differing.leadingZeroBitCount) / Self.slotBits
        if level >= Self.levelCount {
            link(index, into: Self.overflowList)
            return overflowBoundary
        }
        let shift = level * Self.slotBits
        let slot = Int((due >> shift) & 63)
        link(index, into: UInt32(level * Self.slotsPerLevel + slot))
        occupied[level] |= 1 << UInt64(slot)
        return (now & ~((1 << (shift + Self.slotBits)) - 1)) | (Int64(slot) << shift)
    }

    /// The first tick of the next span of 2^36 ticks, when the overflow list is re-filed.
    var overflowBoundary: Int64 {
        ((now >> Self.reachBits) + 1) << Self.reachBits
    }

    /// Where the next list comes due: a level and slot, the overflow list, or the expired list.
    enum Due {
        case expired
        case slot(level: Int, slot: Int)
        case overflow
    }

    /// The tick at which the next list comes due, and which list; `nil` when the wheel is empty.
    ///
    /// A list coming due is not the same as a timer firing: a slot of a higher level only cascades its
    /// entries to lower levels, and a deadline pushed later re-files its entry.
    ///
    /// - Complexity: O(1) (at most six bitmap scans).
    func nextExpiration() -> (tick: Int64, due: Due)? {
        if !isEmpty(Self.expiredList) { return (now, .expired) }
        for level in 0..<Self.levelCount {
            let bits = occupied[level]
            if bits == 0 { continue }
            let shift = level * Self.slotBits
            let position = Int((now >> shift) & 63)
            let rotated = (bits >> UInt64(position)) | (bits << UInt64(64 - position))
            let slot = (position + rotated.trailingZeroBitCount) & 63
            let base = now & ~((1 << (shift + Self.slotBits)) - 1)
            return (base | (Int64(slot) << shift), .slot(level: level, slot: slot))
        }
        if !isEmpty(Self.overflowList) { return (overflowBoundary, .overflow) }
        return nil
    }

    /// Moves ``now`` forward to `tick` when nothing comes due before or at it; used to re-anchor an idle wheel.
    mutating func skipIdle(to tick: Int64) {
        guard tick > now else { return }
        if let next = nextExpiration(), next.tick <= tick { return }
        now = tick
    }

    /// Fires every timer due at or before `target`: appends them to `fired` in `(deadline, sequence)`
    /// order and frees their entries, cascading and re-filing the rest.
    ///
    /// - Complexity: O(fired + cascaded) plus the sort of each tick's timers when they were armed out of order.
    mutating func advance(to target: Int64, into fired: inout ContiguousArray<Fired>) {
        while let next = nextExpiration(), next.tick <= target {
            now = next.tick
            let first: UInt32
            switch next.due {
            case .expired:
                first = detach(Self.expiredList)
            case .overflow:
                first = detach(Self.overflowList)
            case .slot(let level, let slot):
                first = detach(UInt32(level * Self.slotsPerLevel + slot))
                occupied[level] &= ~(1 << UInt64(slot))
            }
            let start = fired.count
            process(from: first, into: &fired)
            Self.sortIfNeeded(&fired, from: start)
        }
        if target > now { now = target }
    }

    /// Fires or re-files each entry of a detached chain.
    private mutating func process(from first: UInt32, into fired: inout ContiguousArray<Fired>) {
        var index = first
        let (product, overflow) = now.multipliedReportingOverflow(by: tickNanoseconds)
        // A tick past Int64 nanoseconds is later than every deadline the table can hold.
        let nowNanoseconds = overflow ? Int64.max : product
        while index != Self.noEntry {
            let entry = entry(index)
            let next = entry.pointee.next
            if entry.pointee.deadline <= nowNanoseconds {
                let deadline = entry.pointee.deadline
                let sequence = entry.pointee.sequence
                let value = entry.pointee.value
                fired.append(Fired(deadline: deadline, sequence: sequence, value: value, action: release(index)))
            } else {
                _ = place(index, due: dueTick(entry.pointee.deadline))
            }
            index = next
        }
    }

    /// Sorts `fired[start...]` by `(deadline, sequence)` unless it already is.
    private static func sortIfNeeded(_ fired: inout ContiguousArray<Fired>, from start: Int) {
        var sorted = true
        var index = start + 1
        while index < fired.endIndex {
            let a = fired[index - 1]
            let b = fired[index]
            if (b.deadline, b.sequence) < (a.deadline, a.sequence) {
                sorted = false
                break
            }
            index += 1
        }
        if sorted { return }
        fired[start...].sort { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }
    }
}
