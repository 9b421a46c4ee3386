import Tempo

/// The position of a running plan and its late-fire bookkeeping, as a value type shared by ``PlanTimer`` and
/// ``PlanFires``.
///
/// Every planned date is *served* once: delivered, folded into a later fire, or dropped. `served` only moves
/// forward, so no date is served twice, whatever the wall clock does: after the clock is set back, the next
/// fire is the first date after the last one served.
struct PlanCursor: Sendable {
    /// What the runner does next.
    enum Decision: Equatable {
        /// Hand this fire over.
        case deliver(planned: Int64, missed: Int)
        /// Sleep until this instant (wall-clock nanoseconds), then decide again.
        case wait(until: Int64)
        /// The plan has no more dates.
        case finished
    }

    /// See ``PlanTimer/maximumBurst``.
    static let maximumBurst = 1_024

    let node: PlanNode
    let policy: LateTickPolicy
    /// Dates at or before this instant are served (or were before the plan started).
    private(set) var served: Int64
    /// Dates dropped since the last delivery, reported by the next one.
    private var dropped = 0
    /// Fires handed over so far.
    private(set) var fired = 0

    init(node: PlanNode, policy: LateTickPolicy, start: Int64) {
        self.node = node
        self.policy = policy
        self.served = start
    }

    /// Lets dates after `start` be served from now on; used when a cancelled timer starts again. Never moves back.
    mutating func restart(at start: Int64) {
        served = max(served, start)
        dropped = 0
    }

    /// Decides what to do at wall-clock instant `now`.
    ///
    /// - Complexity: One next-date computation when nothing is due; O(number of due dates) when several are.
    mutating func decide(now: Int64) -> Decision {
        guard let first = node.next(after: served) else { return .finished }
        guard first <= now else { return .wait(until: first) }
        switch policy {
        case .coalesce:
            let (count, last) = node.count(after: served, through: now, limit: .max)
            return deliver(last ?? first, missed: count - 1)
        case .skip:
            let (count, last) = node.count(after: served, through: now, limit: .max)
            guard count > 1, let last else { return deliver(first, missed: 0) }
            dropped += count
            served = last
            return decide(now: now)
        default:
            // Burst: every due date in turn, at most `maximumBurst` of them for one wakeup.
            let (count, _) = node.count(after: served, through: now, limit: .max)
            if count > Self.maximumBurst {
                let (skipped, last) = node.count(after: served, through: now, limit: count - Self.maximumBurst)
                dropped += skipped
                served = last ?? served
                guard let next = node.next(after: served) else { return .finished }
                return deliver(next, missed: 0)
            }
            return deliver(first, missed: 0)
        }
    }

    private mutating func deliver(_ planned: Int64, missed: Int) -> Decision {
        defer { dropped = 0 }
        served = planned
        fired += 1
        return .deliver(planned: planned, missed: missed + dropped)
    }
}
