/// The anchored grid of an ``AsyncTickSequence`` and its late-tick bookkeeping, as a value type.
///
/// Time enters only as the elapsed time since slot 0 was due, so the same rules serve every clock. Slot
/// `k` (0-based) is due `k · interval` after slot 0; the rules for late slots are those of
/// ``TempoTimer`` (see `TimerStateMachine.deadlineReached`), applied when the consumer asks for a tick.
struct TickSchedule: Sendable {
    /// What the iterator does next.
    enum Decision: Equatable {
        /// Hand slot `slot` to the consumer, reporting `missed` folded or dropped slots.
        case deliver(slot: Int, missed: Int)
        /// Sleep until slot `slot` is due, then decide again.
        case wait(slot: Int)
        /// Every slot of a finite sequence was used.
        case finished
    }

    let interval: Duration
    /// The number of slots, or `nil` for a sequence that never ends.
    let total: Int?
    let policy: LateTickPolicy
    /// The next slot not yet delivered, folded or dropped.
    private(set) var nextSlot = 0
    /// Slots dropped by ``LateTickPolicy/skip`` since the last delivery.
    private var dropped = 0

    init(interval: Duration, total: Int?, policy: LateTickPolicy) {
        self.interval = interval
        self.total = total
        self.policy = policy
    }

    /// The offset of `slot` from slot 0.
    func offset(of slot: Int) -> Duration {
        interval * slot
    }

    /// Decides what to do when the consumer asks for a tick `elapsed` after slot 0 was due (negative
    /// before it).
    mutating func decide(elapsed: Duration) -> Decision {
        if let total, nextSlot >= total { return .finished }
        let first = nextSlot
        guard elapsed >= offset(of: first) else { return .wait(slot: first) }
        var last = Int(clamping: elapsed.wholeMultiples(of: interval))
        if let total { last = min(last, total - 1) }
        switch policy {
        case .burst:
            nextSlot = first + 1
            return .deliver(slot: first, missed: 0)
        case .coalesce:
            nextSlot = last + 1
            return .deliver(slot: last, missed: last - first)
        case .skip:
            guard last > first else {
                defer { dropped = 0 }
                nextSlot = first + 1
                return .deliver(slot: first, missed: dropped)
            }
            dropped += last - first + 1
            nextSlot = last + 1
            return decide(elapsed: elapsed)
        }
    }
}
