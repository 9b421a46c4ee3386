/// The serial mailbox of one ``TempoTimer``: scheduled ticks, manual fires and state changes, in order.
///
/// The first delivery is stored inline and later ones in an overflow object, allocated the first time two
/// deliveries are pending and kept with its storage after that, so a timer that has one delivery pending at a time
/// (the usual case) never allocates for its mailbox and carries one word for the rest. Not thread-safe: it lives in
/// the timer's state machine, under the timer's lock.
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

    /// The deliveries after ``first``, oldest at `start`. A class so that the mailbox stays one word for it; it is
    /// only reached through the mailbox, under the timer's lock.
    private final class Overflow {
        var deliveries: [Delivery] = []
        var start = 0
    }

    private var overflow: Overflow?
    /// The oldest delivery; `nil` only when the mailbox is empty.
    private(set) var first: Delivery?

    mutating func append(_ delivery: Delivery) {
        if first == nil {
            first = delivery
        } else if let overflow {
            overflow.deliveries.append(delivery)
        } else {
            let overflow = Overflow()
            overflow.deliveries.append(delivery)
            self.overflow = overflow
        }
    }

    /// Replaces the oldest delivery (what is left of a run of ticks after its first one was taken).
    mutating func replaceFirst(with delivery: Delivery) {
        assert(first != nil, "replaceFirst on an empty mailbox")
        first = delivery
    }

    mutating func removeFirst() {
        guard let overflow, overflow.start < overflow.deliveries.count else {
            first = nil
            return
        }
        first = overflow.deliveries[overflow.start]
        overflow.start += 1
        if overflow.start == overflow.deliveries.count {
            overflow.deliveries.removeAll(keepingCapacity: overflow.deliveries.capacity <= 16)
            overflow.start = 0
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
        if let overflow {
            if overflow.start > 0 {
                overflow.deliveries.removeSubrange(0..<overflow.start)
                overflow.start = 0
            }
            overflow.deliveries.removeAll(where: isDropped)
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
        guard let overflow else { return }
        var index = overflow.start
        while index < overflow.deliveries.count {
            if case .ticks(let first, _, _, let following) = overflow.deliveries[index] {
                body(first, first + Int(following))
            }
            index += 1
        }
    }
}
