/// The structure of a ``Plan``: how its dates are computed. Instants are ``PlanInstant`` nanoseconds.
indirect enum PlanNode: Sendable {
    /// No dates.
    case never
    /// These instants, sorted and without duplicates.
    case dates([Int64])
    /// `anchor + k · step` for every integer `k` (step ≥ 1 ns).
    case grid(anchor: Int64, step: Int64)
    /// A calendar rule or cron expression in a time zone.
    case calendar(ZonedCalendar)
    /// Every date of any of the plans (one date where several coincide).
    case union([PlanNode])
    /// The dates the two plans share.
    case intersection(PlanNode, PlanNode)
    /// The dates of the plan after `after` (exclusive) and through `through` (inclusive).
    case window(PlanNode, after: Int64?, through: Int64?)
    /// Every date of the plan moved by `by` nanoseconds.
    case shifted(PlanNode, by: Int64)

    /// The most next-date steps one search may take (see ``StepBudget``): every part of the plan that is asked for a
    /// date counts one step, however deeply it is nested, so intersections inside intersections share one budget
    /// instead of multiplying theirs (see ``Plan/intersection(_:)``).
    static let stepLimit = 20_000

    /// The first date strictly after `t`, or `nil` when the plan has none or the search took more than
    /// ``stepLimit`` steps.
    func next(after t: Int64) -> Int64? {
        var budget = StepBudget()
        return next(after: t, budget: &budget)
    }

    /// The first date strictly after `t`, or `nil` when the plan has none or `budget` ran out (then
    /// `budget.isExhausted` is true and no date may be trusted: a union must not answer from its other parts).
    func next(after t: Int64, budget: inout StepBudget) -> Int64? {
        guard budget.take() else { return nil }
        switch self {
        case .never:
            return nil
        case .dates(let dates):
            let index = dates.partitionIndex(after: t)
            return index < dates.count ? dates[index] : nil
        case .grid(let anchor, let step):
            let distance = Int128(t) - Int128(anchor)
            var k = distance / Int128(step)
            if distance - k * Int128(step) >= 0 { k += 1 }
            return Int64(exactly: Int128(anchor) + k * Int128(step))
        case .calendar(let calendar):
            let second = CivilTime.floorDivide(t, PlanInstant.nanosecondsPerSecond) + 1
            guard let found = calendar.next(atOrAfter: second) else { return nil }
            let (value, overflow) = found.multipliedReportingOverflow(by: PlanInstant.nanosecondsPerSecond)
            return overflow ? nil : value
        case .union(let plans):
            var best: Int64?
            for plan in plans {
                let date = plan.next(after: t, budget: &budget)
                if budget.isExhausted { return nil }
                if let date, best.map({ date < $0 }) ?? true { best = date }
            }
            return best
        case .intersection(let a, let b):
            var cursor = t
            while true {
                guard let x = a.next(after: cursor, budget: &budget), let y = b.next(after: x - 1, budget: &budget)
                else { return nil }
                if x == y { return x }
                cursor = y - 1
            }
        case .window(let plan, let after, let through):
            guard let date = plan.next(after: max(t, after ?? .min), budget: &budget) else { return nil }
            if let through, date > through { return nil }
            return date
        case .shifted(let plan, let offset):
            let (start, overflow) = t.subtractingReportingOverflow(offset)
            if overflow && offset < 0 { return nil }
            return plan.next(after: overflow ? .min : start, budget: &budget).flatMap { Self.add($0, offset) }
        }
    }

    private static func add(_ date: Int64, _ offset: Int64) -> Int64? {
        let (value, overflow) = date.addingReportingOverflow(offset)
        return overflow ? nil : value
    }

    /// The number of dates in `(after, through]` and the last of them, counting at most `limit`.
    ///
    /// - Complexity: O(log n) for fixed dates, O(1) for intervals; O(min(number of dates, `limit`)) next-date
    ///   computations otherwise.
    func count(after: Int64, through: Int64, limit: Int) -> (count: Int, last: Int64?) {
        guard through > after else { return (0, nil) }
        if case .grid(_, let step) = self {
            guard let first = next(after: after), first <= through else { return (0, nil) }
            let span = (Int128(through) - Int128(first)) / Int128(step)
            let count = span + 1
            let last = Int128(first) + span * Int128(step)
            return count > Int128(limit)
                ? (limit, Int64(Int128(first) + Int128(limit - 1) * Int128(step)))
                : (Int(count), Int64(last))
        }
        if case .dates(let dates) = self {
            let low = dates.partitionIndex(after: after)
            let high = dates.partitionIndex(after: through)
            let count = min(high - low, limit)
            return count > 0 ? (count, dates[low + count - 1]) : (0, nil)
        }
        var count = 0
        var last: Int64?
        var cursor = after
        while count < limit, let date = next(after: cursor), date <= through {
            count += 1
            last = date
            cursor = date
        }
        return (count, last)
    }
}
