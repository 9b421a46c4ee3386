/// The anchored grid of an ``AsyncTickSequence``, on elapsed time since slot 0 was due.
///
/// Time enters only as the elapsed time since slot 0 was due, so the same rules serve every `Clock`: the
/// slots and late-tick policies are those of ``TickGrid`` (the one implementation, shared with
/// ``TempoTimer``), on a grid whose slot 0 is due at elapsed zero.
struct SlotSchedule: Sendable {
    /// What the iterator does next.
    enum Decision: Equatable {
        /// Hand slot `slot` to the consumer, reporting `missed` folded or dropped slots.
        case deliver(slot: Int, missed: Int)
        /// Sleep until slot `slot` is due (at ``offset(of:)``), then decide again.
        case wait(slot: Int)
        /// Every slot of a finite sequence was used (or the next slot can never be due).
        case finished
    }

    private var grid: TickGrid

    init(interval: Duration, total: Int?, policy: LateTickPolicy) {
        grid = TickGrid(first: .zero, interval: interval, count: total, policy: policy)
    }

    /// The period between slots.
    var interval: Duration { grid.interval }

    /// The offset of `slot` from slot 0, or `nil` when it cannot be represented.
    func offset(of slot: Int) -> Duration? {
        grid.due(slot)?.offset
    }

    /// Decides what to do when the consumer asks for a tick `elapsed` after slot 0 was due (negative
    /// before it). Burst slots are handed out one per call.
    mutating func decide(elapsed: Duration) -> Decision {
        while true {
            switch grid.claim(at: TimerInstant(offset: elapsed), oneSlot: true) {
            case .notDue: return .wait(slot: grid.nextSlot)
            case .deliver(let slot, _, let missed): return .deliver(slot: slot, missed: missed)
            case .dropped: continue
            case .finished: return .finished
            }
        }
    }
}
