extension WheelCore {
    // MARK: Timers armed with a delay, waiting for a clock reading

    /// Arms a timer due `delay` nanoseconds after a moment not known yet: it waits in ``provisionalList`` until
    /// ``settleProvisional(now:)`` or ``settle(_:now:)`` gives it a deadline measured from a clock reading taken
    /// after this call. Returns its index and sequence number.
    ///
    /// - Complexity: O(1); the table grows by a chunk when full.
    mutating func insertProvisional(delay: Int64, value: UInt64, action: Action?) -> (UInt32, UInt64) {
        let (index, sequence) = allocateEntry(value: value, action: action)
        let entry = entry(index)
        entry.pointee.deadline = delay
        entry.pointee.sequence = sequence | Self.provisionalBit
        link(index, into: Self.provisionalList)
        return (index, sequence)
    }

    /// Gives every provisional entry its deadline, `now` plus its delay, and files it.
    ///
    /// `now` (nanoseconds since the origin) must be a clock reading taken, under the wheel's lock, after every
    /// provisional entry was armed: a deadline measured from it is never earlier than one measured from the
    /// arming call.
    ///
    /// - Complexity: O(provisional entries).
    mutating func settleProvisional(now nowNanoseconds: Int64) {
        var index = detach(Self.provisionalList)
        while index != Self.noEntry {
            let next = entry(index).pointee.next
            _ = fileSettled(index, now: nowNanoseconds)
            index = next
        }
    }

    /// Gives one provisional entry its deadline (see ``settleProvisional(now:)``); returns the tick its slot comes
    /// due, or `nil` when the entry is not provisional.
    mutating func settle(_ index: UInt32, now nowNanoseconds: Int64) -> Int64? {
        guard isProvisional(index) else { return nil }
        unlink(index)
        return fileSettled(index, now: nowNanoseconds)
    }

    @inline(__always)
    private mutating func fileSettled(_ index: UInt32, now nowNanoseconds: Int64) -> Int64 {
        let entry = entry(index)
        let (sum, overflow) = nowNanoseconds.addingReportingOverflow(entry.pointee.deadline)
        // Only past 146 years of wheel time (delays are at most Int64.max / 2): the latest deadline the table holds.
        entry.pointee.deadline = overflow ? .max : sum
        entry.pointee.sequence &= ~Self.provisionalBit
        return place(index, due: dueTick(entry.pointee.deadline))
    }

    /// Whether entry `index` waits in ``provisionalList`` for its deadline.
    @inline(__always)
    func isProvisional(_ index: UInt32) -> Bool {
        entry(index).pointee.sequence & Self.provisionalBit != 0
    }

    /// Whether any entry waits for its deadline.
    var hasProvisional: Bool { !isEmpty(Self.provisionalList) }
}
