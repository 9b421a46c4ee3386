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

    /// See ``PlanTimer/zoneCheckInterval``, in nanoseconds.
    static let zoneCheckNanoseconds: Int64 = 60 * PlanInstant.nanosecondsPerSecond

    let node: PlanNode
    let policy: LateTickPolicy
    /// The plan's zones whose rules may change while it runs, checked at each decision.
    let watchedZones: [ZoneRules]
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
        self.watchedZones = node.watchedZones
    }

    /// Checks the watched zones for changed rules (a few system calls each; nothing without watched zones).
    func refreshZones(now: Int64) {
        Self.refresh(watchedZones, now: now)
    }

    /// Checks `zones` for changed rules at wall-clock instant `now`.
    static func refresh(_ zones: [ZoneRules], now: Int64) {
        guard !zones.isEmpty else { return }
        let second = CivilTime.floorDivide(now, PlanInstant.nanosecondsPerSecond)
        for zone in zones { zone.refresh(now: second) }
    }

    /// The wall-clock instant a runner waiting for `date` must wake at the latest: the date itself, or sooner when
    /// the plan has watched zones, whose rules are checked at least every ``zoneCheckNanoseconds``.
    func wakeup(for date: Int64, now: Int64) -> Int64 {
        guard !watchedZones.isEmpty else { return date }
        let (check, overflow) = now.addingReportingOverflow(Self.zoneCheckNanoseconds)
        return overflow ? date : min(date, check)
    }

    /// Lets dates after `start` be served from now on; used when a cancelled timer starts again. Never moves back.
    mutating func restart(at start: Int64) {
        served = max(served, start)
        dropped = 0
    }

    /// Decides what to do at wall-clock instant `now`, under the zone rules in force (runners call
    /// ``refreshZones(now:)`` first, outside their locks).
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
