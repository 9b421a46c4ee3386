/// The serial mailbox of one ``TempoTimer``: scheduled ticks, manual fires and state changes, in order.
///
/// The first delivery is stored inline and later ones in an overflow array whose storage is kept, so a timer that
/// has one delivery pending at a time (the usual case) never allocates for its mailbox. Not thread-safe: it lives
/// in the timer's state machine, under the timer's lock.
struct TimerMailbox {
    /// A unit of work in the mailbox.
    enum Delivery {
        /// Scheduled slots `first...last` (0-based), due from `firstDue` every interval of the epoch's schedule.
        case ticks(first: Int, last: Int, firstDue: TimerInstant, missed: Int, epoch: UInt64)
        case manual(index: Int, requested: TimerInstant, cancelEpoch: UInt64)
        case state(TimerState)
    }

    /// The oldest delivery; `nil` only when the mailbox is empty.
    private(set) var first: Delivery?
    private var rest: [Delivery] = []
    private var restStart = 0

    mutating func append(_ delivery: Delivery) {
        if first == nil {
            first = delivery
        } else {
            rest.append(delivery)
        }
    }

    /// Replaces the oldest delivery (what is left of a run of ticks after its first one was taken).
    mutating func replaceFirst(with delivery: Delivery) {
        assert(first != nil, "replaceFirst on an empty mailbox")
        first = delivery
    }

    mutating func removeFirst() {
        guard restStart < rest.count else {
            first = nil
            return
        }
        first = rest[restStart]
        restStart += 1
        if restStart == rest.count {
            rest.removeAll(keepingCapacity: rest.capacity <= 16)
            restStart = 0
        }
    }

    /// The number of scheduled ticks of `epoch` in the mailbox (saturating).
    func scheduledTicks(epoch: UInt64) -> Int {
        var count = 0
        forEachTicks(epoch: epoch) { first, last in
            let (sum, overflow) = count.addingReportingOverflow(last - first + 1)
            count = overflow ? .max : sum
        }
        return count
    }

    /// Whether the mailbox holds scheduled ticks of `epoch`.
    func hasScheduledTicks(epoch: UInt64) -> Bool {
        var found = false
        forEachTicks(epoch: epoch) { _, _ in found = true }
        return found
    }

    private func forEachTicks(epoch: UInt64, _ body: (Int, Int) -> Void) {
        if case .ticks(let first, let last, _, _, let tickEpoch)? = first, tickEpoch == epoch { body(first, last) }
        var index = restStart
        while index < rest.count {
            if case .ticks(let first, let last, _, _, let tickEpoch) = rest[index], tickEpoch == epoch {
                body(first, last)
            }
            index += 1
        }
    }
}
