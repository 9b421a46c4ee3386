import Tempo

/// The position of a running plan and its late-fire bookkeeping, as a value type shared by ``PlanTimer`` and
/// ``PlanFires``.
///
/// Every planned date is *served* once: delivered, folded into a later fire, or dropped. Within a run `served` only
/// moves forward, so no date is served twice, whatever the wall clock does: after the clock is set back, the next
/// fire is the first date after the last one served. Dates a `Date` cannot tell apart (closer than its resolution,
/// about 0.24 µs in 2026) are one date, as ``Plan/nextDates(after:count:)`` lists them: a fire serves them all. A
/// restart (``restart(at:)``) serves the dates after it again, except those up to the last date fired.
struct PlanCursor: Sendable {
    /// What the runner does next.
    enum Decision: Equatable {
        /// Hand this fire over; `missed` is a lower bound when `missedIsLowerBound` (see ``countLimit``).
        case deliver(planned: Int64, missed: Int, missedIsLowerBound: Bool)
        /// Sleep until this instant (wall-clock nanoseconds), then decide again.
        case wait(until: Int64)
        /// The plan has no more dates.
        case finished
    }

    /// See ``PlanTimer/maximumBurst``.
    ///
    /// Not `LateTickPolicy.maximumBurst` (1,000,000): a `TempoTimer`'s slots are arithmetic on its grid, but each
    /// date of a plan is a next-date computation (a microsecond or more), so a burst of a million would hold the
    /// timer's queue for seconds, which is what the burst limit is there to prevent.
    static let maximumBurst = 1_024

    /// The most missed dates counted one by one for a fire's ``PlanFire/missed``: counting is a next-date
    /// computation per date, so a wall clock set 56 years ahead under a per-minute plan (29 million dates) must not
    /// count them all. More are reported as "at least" this many (``PlanFire/missedIsLowerBound``); fixed dates and
    /// interval plans are counted exactly whatever their number.
    static let countLimit = 1_024

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
    /// Whether ``dropped`` is a lower bound (more than ``countLimit`` dates were dropped at once).
    private var droppedIsLowerBound = false
    /// During a burst: the dates up to this instant were counted (at most ``maximumBurst``), so the burst's later
    /// fires hand them over without counting again.
    private var burstThrough: Int64?
    /// Fires handed over so far.
    private(set) var fired = 0
    /// The last instant sharing the `Date` of the last fire's planned date: no restart fires a date up to it again.
    private var lastFired: Int64?

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

    /// Lets the dates after `start` be served from now on, except the dates up to the last one fired (so that no
    /// date is fired twice); used when a cancelled or finished timer starts again. After the wall clock was set back,
    /// this moves back: the dates after the restart that the earlier run passed over (dropped, or after the moment it
    /// stopped) are served.
    mutating func restart(at start: Int64) {
        served = max(start, lastFired ?? start)
        dropped = 0
        droppedIsLowerBound = false
        burstThrough = nil
    }

    /// Decides what to do at wall-clock instant `now`, under the zone rules in force (runners call
    /// ``refreshZones(now:)`` first, outside their locks).
    ///
    /// - Complexity: One next-date computation when nothing is due; when many dates are due, about 64 to find the
    ///   latest and at most ``countLimit`` to count them (``maximumBurst`` times a small factor to start a burst), so
    ///   a wall clock set years ahead costs milliseconds, not one computation per missed date.
    mutating func decide(now: Int64) -> Decision {
        guard let first = node.next(after: served) else { return .finished }
        guard first <= now else { return .wait(until: first) }
        switch policy.kind {
        case .coalesce:
            let last = lastDate(from: first, through: now)
            let (count, _) = node.count(after: served, through: last, limit: Self.countLimit + 1)
            return deliver(last, missed: max(0, count - 1), lowerBound: count > Self.countLimit)
        case .skip:
            guard let second = node.next(after: first), second <= now else { return deliver(first, missed: 0) }
            let last = lastDate(from: second, through: now)
            drop(through: last)
            return decide(now: now)
        case .burst:
            // Every due date in turn, at most `maximumBurst` of them for one wakeup (the newest).
            if let through = burstThrough, first <= through { return deliver(first, missed: 0) }
            burstThrough = now
            let (count, _) = node.count(after: served, through: now, limit: Self.maximumBurst + 1)
            guard count > Self.maximumBurst else { return deliver(first, missed: 0) }
            let last = lastDate(from: first, through: now)
            drop(through: start(ofNewest: Self.maximumBurst, through: last))
            guard let next = node.next(after: served), next <= now else { return decide(now: now) }
            return deliver(next, missed: 0)
        }
    }

    /// Drops the dates in (`served`, `through`]: counts them (at most ``countLimit``) and marks them served.
    private mutating func drop(through: Int64) {
        guard through > served else { return }
        let (count, _) = node.count(after: served, through: through, limit: Self.countLimit + 1)
        dropped += min(count, Self.countLimit)
        droppedIsLowerBound = droppedIsLowerBound || count > Self.countLimit
        served = through
    }

    /// The latest date at or before `now`, given a date `first` at or before it: a binary search over time (the
    /// first instant after which the next date is later than `now`), about 64 next-date computations.
    func lastDate(from first: Int64, through now: Int64) -> Int64 {
        guard let second = node.next(after: first), second <= now else { return first }
        var low = first  // next(after: low) <= now
        var high = now  // next(after: high) > now
        while Int128(high) - Int128(low) > 1 {
            let mid = Int64(truncatingIfNeeded: (Int128(low) + Int128(high)) / 2)
            if let date = node.next(after: mid), date <= now { low = mid } else { high = mid }
        }
        guard let date = node.next(after: low), date <= now else { return second }
        return date
    }

    /// An instant `c` after `served` such that at most `k` dates lie in (`c`, `last`], as many as can be found
    /// cheaply: windows ending at `last` double until one holds more than `k` dates, then the oldest of its lower
    /// half are passed over one by one (at most `4k`; an irregular plan with more keeps only the upper half's).
    func start(ofNewest k: Int, through last: Int64) -> Int64 {
        var upperCut = last
        var upperCount = 0
        var width: Int128 = 1
        var lowerCut: Int64
        while true {
            let cut = Int64(max(Int128(served), Int128(last) - width))
            let (count, _) = node.count(after: cut, through: last, limit: k + 1)
            if count > k {
                lowerCut = cut
                break
            }
            if cut == served { return served }
            (upperCut, upperCount) = (cut, count)
            width *= 2
        }
        let (inLower, _) = node.count(after: lowerCut, through: upperCut, limit: 4 * k)
        guard inLower < 4 * k else { return upperCut }
        for _ in 0..<max(0, inLower - (k - upperCount)) {
            guard let date = node.next(after: lowerCut), date <= upperCut else { break }
            lowerCut = date
        }
        return lowerCut
    }

    private mutating func deliver(_ planned: Int64, missed: Int, lowerBound: Bool = false) -> Decision {
        defer {
            dropped = 0
            droppedIsLowerBound = false
        }
        // Every instant that shares the planned date's `Date` is this same date: served with it, never fired again.
        served = max(planned, PlanInstant.lastNanosecond(sharingDateOf: planned))
        lastFired = served
        fired += 1
        return .deliver(
            planned: planned, missed: missed + dropped, missedIsLowerBound: lowerBound || droppedIsLowerBound)
    }
}
