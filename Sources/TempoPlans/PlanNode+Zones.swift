import Foundation

extension PlanNode {
    /// The zones of this plan whose rules a running plan must check for changes (see ``ZoneRules/refresh(now:)``),
    /// each once.
    var watchedZones: [ZoneRules] {
        var found: [ZoneRules] = []
        collectWatchedZones(into: &found)
        return found
    }

    private func collectWatchedZones(into found: inout [ZoneRules]) {
        switch self {
        case .never, .dates, .grid:
            return
        case .calendar(let calendar):
            if calendar.rules.isWatched, !found.contains(where: { $0 === calendar.rules }) {
                found.append(calendar.rules)
            }
        case .union(let plans):
            for plan in plans { plan.collectWatchedZones(into: &found) }
        case .intersection(let a, let b):
            a.collectWatchedZones(into: &found)
            b.collectWatchedZones(into: &found)
        case .window(let plan, _, _), .shifted(let plan, _):
            plan.collectWatchedZones(into: &found)
        }
    }

    /// This plan with every calendar part reading its zone's rules from `source` (one ``ZoneRules`` per zone
    /// identifier, shared by the parts).
    func usingZoneRules(_ source: any ZoneRulesSource, shared: inout [String: ZoneRules]) -> PlanNode {
        switch self {
        case .never, .dates, .grid:
            return self
        case .calendar(let calendar):
            let zone = calendar.rules.requested
            let rules = shared[zone.identifier] ?? ZoneRules(zone, source: source)
            shared[zone.identifier] = rules
            return .calendar(ZonedCalendar(matcher: calendar.matcher, rules: rules, policy: calendar.policy))
        case .union(let plans):
            return .union(plans.map { $0.usingZoneRules(source, shared: &shared) })
        case .intersection(let a, let b):
            return .intersection(a.usingZoneRules(source, shared: &shared), b.usingZoneRules(source, shared: &shared))
        case .window(let plan, let after, let through):
            return .window(plan.usingZoneRules(source, shared: &shared), after: after, through: through)
        case .shifted(let plan, let offset):
            return .shifted(plan.usingZoneRules(source, shared: &shared), by: offset)
        }
    }
}

extension Plan {
    /// This plan with its calendar parts reading their zones' rules from `source` instead of the system: the seam
    /// through which tests change a zone's rules while a plan waits.
    func usingZoneRules(_ source: any ZoneRulesSource) -> Plan {
        var shared: [String: ZoneRules] = [:]
        var plan = Plan(node.usingZoneRules(source, shared: &shared), description: description)
        plan.label = label
        return plan
    }
}
