public import Foundation

extension Plan {
    /// The dates of either plan; a date both plans have appears once.
    ///
    /// - Parameter other: The other plan.
    /// - Returns: The combined plan.
    /// - Complexity: Each next date costs the sum of both plans' next-date costs.
    public func union(_ other: Plan) -> Plan {
        Plan.union([self, other])
    }

    /// The dates of any of the plans; a date several plans have appears once.
    ///
    /// - Parameter plans: The plans.
    /// - Returns: The combined plan (``never`` for none).
    public static func union(_ plans: [Plan]) -> Plan {
        var nodes: [PlanNode] = []
        for plan in plans {
            if case .union(let inner) = plan.node { nodes += inner } else { nodes.append(plan.node) }
        }
        if nodes.isEmpty { return .never }
        return Plan(.union(nodes), description: plans.map(\.description).joined(separator: " or "))
    }

    /// The dates both plans have, such as "every 15 minutes, but only on weekday mornings".
    ///
    /// Each next date is found by leapfrogging: take this plan's next date, then the other's at or after it,
    /// and so on until they agree. That makes sense when the plans share dates regularly (two calendar plans,
    /// or a calendar plan and an interval grid on whole minutes). A search that takes more than 20,000 steps
    /// without a shared date ends the plan there: two grids that never meet (every 2 hours, and every 2 hours
    /// but shifted by one) end at once instead of spinning. A step is one part of the plan asked for a date, at
    /// any depth: intersections nested in intersections (or in unions) share the one budget of the search.
    ///
    /// - Parameter other: The other plan.
    /// - Returns: The intersection.
    /// - Complexity: At most 20,000 next-date computations of single parts per date, however deeply composed.
    public func intersection(_ other: Plan) -> Plan {
        Plan(.intersection(node, other.node), description: "(\(description)) and (\(other.description))")
    }

    /// The dates of this plan up to and including `end`.
    ///
    /// - Parameter end: The last date that may appear.
    /// - Returns: The bounded plan.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidDate`` for a date that is not finite or out of range.
    public func until(_ end: Date) throws(PlanError) -> Plan {
        let last = try PlanInstant.nanoseconds(end, name: "end")
        return Plan(.window(node, after: nil, through: last), description: "\(description) until \(end)")
    }

    /// The dates of this plan from `start` on, including `start`.
    ///
    /// - Parameter start: The first date that may appear.
    /// - Returns: The bounded plan.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidDate`` for a date that is not finite or out of range.
    public func starting(at start: Date) throws(PlanError) -> Plan {
        let first = try PlanInstant.nanoseconds(start, name: "start")
        return Plan(
            .window(node, after: first == .min ? nil : first - 1, through: nil),
            description: "\(description) from \(start)")
    }

    /// The first `count` dates of this plan after `start`, and no more.
    ///
    /// The dates are counted when the plan is built, so the result is a fixed window of this plan: "the first 5
    /// times" of a running plan are the first 5 dates after the moment you built it (by default).
    ///
    /// - Parameters:
    ///   - count: How many dates, at least 1.
    ///   - start: Dates strictly after this instant are counted (default: now).
    /// - Returns: The plan of at most `count` dates (fewer when this plan has fewer).
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidCount`` for a count below 1, or
    ///   ``PlanError/Code/invalidDate`` for a bad start.
    /// - Complexity: O(`count`) next-date computations when built (O(1) for an interval plan, O(log n) for fixed
    ///   dates); O(1) extra per date afterwards. The dates are counted when the plan is built, so a huge `count`
    ///   of a frequent calendar plan takes as long as counting them: `first(Int.max)` of a per-second cron counts
    ///   every second to 2262 (hours). Use ``until(_:)`` for "until a date".
    public func first(_ count: Int, after start: Date = Date()) throws(PlanError) -> Plan {
        guard count >= 1 else {
            throw PlanError(.invalidCount, value: "\(count)", message: "count must be at least 1, got \(count)")
        }
        let lower = try PlanInstant.nanoseconds(start, name: "start")
        let (found, last) = node.count(after: lower, through: .max, limit: count)
        let description = "\(description), first \(count) after \(start)"
        guard found > 0, let last else { return Plan(.never, description: description) }
        return Plan(.window(node, after: lower, through: last), description: description)
    }

    /// Every date of this plan moved by `offset`: negative for earlier ("10 minutes before each meeting").
    ///
    /// - Parameter offset: The shift, a whole number of nanoseconds within ±292 years.
    /// - Returns: The shifted plan.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidInterval`` for an offset that is not a whole number of
    ///   nanoseconds or too large.
    public func offset(by offset: Duration) throws(PlanError) -> Plan {
        guard let shift = PlanInstant.nanoseconds(offset) else {
            throw PlanError(
                .invalidInterval, value: "\(offset)",
                message: "offset must be a whole number of nanoseconds within ±292 years, got \(offset)")
        }
        return Plan(.shifted(node, by: shift), description: "\(description) offset by \(offset)")
    }
}
