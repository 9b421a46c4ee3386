/// The serial mailbox of one ``TempoTimer``: scheduled ticks, manual fires and state changes, in order.
///
/// The first delivery is stored inline and later ones in the timer's ``TimerExtras``, allocated the first time two
/// deliveries are pending (if nothing else needed it before) and kept with its storage after that, so a timer that
/// has one delivery pending at a time (the usual case) never allocates for its mailbox. The mailbox holds the
/// extras' reference for the whole state machine, so that it costs one word. Not thread-safe: it lives in the
/// timer's state machine, under the timer's lock.
struct TimerMailbox {
    /// A unit of work in the mailbox.
    enum Delivery {
        /// Scheduled slots `first...first + following` (0-based), due from `firstDue` every interval of the current
        /// schedule (cancel and reset remove queued ticks with ``removeTicks(andManualFires:)``). `following` is
        /// last so that it fills the words' tail, and fits 32 bits: one claim hands at most
        /// ``LateTickPolicy/maximumBurst`` slots to delivery.
        case ticks(first: Int, firstDue: TimerInstant, missed: Int, following: UInt32)
        /// A manual fire (cancel removes queued ones).
        case manual(index: Int, requested: TimerInstant)
        case state(TimerState)
    }

    /// The timer's rarely used state, which keeps the deliveries after ``first``; `nil` until first needed.
    private(set) var extras: TimerExtras?
    /// The oldest delivery; `nil` only when the mailbox is empty.
    private(set) var first: Delivery?

    mutating func append(_ delivery: Delivery) {
        if first == nil {
            first = delivery
        } else {
            neededExtras().overflow.append(delivery)
        }
    }

    /// The extras, allocated on first use.
    mutating func neededExtras() -> TimerExtras {
        if let extras { return extras }
        let extras = TimerExtras()
        self.extras = extras
        return extras
    }

    /// Replaces the oldest delivery (what is left of a run of ticks after its first one was taken).
    mutating func replaceFirst(with delivery: Delivery) {
        assert(first != nil, "replaceFirst on an empty mailbox")
        first = delivery
    }

    mutating func removeFirst() {
        guard let extras, extras.overflowStart < extras.overflow.count else {
            first = nil
            return
        }
        first = extras.overflow[extras.overflowStart]
        extras.overflowStart += 1
        if extras.overflowStart == extras.overflow.count {
            extras.overflow.removeAll(keepingCapacity: extras.overflow.capacity <= 16)
            extras.overflowStart = 0
        }
    }
    /// Removes every queued scheduled tick, and with `andManualFires` every manual fire, keeping the order of the
    /// rest: what a cancel or a reset drops. Allocates nothing.
    ///
    /// - Complexity: O(n) in the number of queued deliveries.
    mutating func removeTicks(andManualFires: Bool) {
        func isDropped(_ delivery: Delivery) -> Bool {
            switch delivery {
            case .ticks: true
            case .manual: andManualFires
            case .state: false
            }
        }
        if let extras {
            if extras.overflowStart > 0 {
                extras.overflow.removeSubrange(0..<extras.overflowStart)
                extras.overflowStart = 0
            }
            // Only when there is something to look at: `removeAll(where:)` on the empty array (the common case, and
            // every cancel of a timer whose extras exist) still went through `replaceSubrange`.
            if !extras.overflow.isEmpty { extras.overflow.removeAll(where: isDropped) }
        }
        while let head = first, isDropped(head) {
            removeFirst()
        }
    }

    /// The number of scheduled ticks in the mailbox (saturating).
    func scheduledTicks() -> Int {
        var count = 0
        forEachTicks { first, last in
            let (sum, overflow) = count.addingReportingOverflow(last - first + 1)
            count = overflow ? .max : sum
        }
        return count
    }

    /// Whether the mailbox holds scheduled ticks.
    func hasScheduledTicks() -> Bool {
        var found = false
        forEachTicks { _, _ in found = true }
        return found
    }

    private func forEachTicks(_ body: (Int, Int) -> Void) {
        if case .ticks(let first, _, _, let following)? = first {
            body(first, first + Int(following))
        }
        guard let extras else { return }
        var index = extras.overflowStart
        while index < extras.overflow.count {
            if case .ticks(let first, _, _, let following) = extras.overflow[index] {
                body(first, first + Int(following))
            }
            index += 1
        }
    }
}
