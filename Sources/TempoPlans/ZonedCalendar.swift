import Foundation

/// A ``CalendarMatcher`` evaluated in a time zone under a ``LocalTimePolicy``: the instants (UTC seconds) at
/// which a calendar rule or cron expression fires.
struct ZonedCalendar: Sendable {
    let matcher: CalendarMatcher
    let rules: ZoneRules
    let policy: LocalTimePolicy
    private let runAfterGap: Bool
    private let runBoth: Bool

    init(matcher: CalendarMatcher, timeZone: TimeZone, policy: LocalTimePolicy) {
        self.init(matcher: matcher, rules: ZoneRules.rules(for: timeZone), policy: policy)
    }

    init(matcher: CalendarMatcher, rules: ZoneRules, policy: LocalTimePolicy) {
        self.matcher = matcher
        self.rules = rules
        self.policy = policy
        self.runAfterGap = policy.runsAfterGap(wildcard: matcher.isWildcard)
        self.runBoth = policy.runsBoth(wildcard: matcher.isWildcard)
    }

    var timeZone: TimeZone { rules.timeZone }

    /// How one local time maps to instants.
    private enum Resolution {
        /// It happens once, at this instant.
        case unique(Int64)
        /// It happens twice; the overlap of repeated local times ends (exclusive) at `overlapEnd`, and the
        /// clocks went back at `change`.
        case repeated(Int64, Int64, change: Int64, overlapEnd: Int64)
        /// It is skipped: the clocks went forward at `change`, and the gap of local times ends at `gapEnd`.
        case skipped(change: Int64, gapEnd: Int64)
    }

    /// The first instant (UTC seconds) at or after `earliest` at which the plan fires, or `nil` if none lies within
    /// the search limit (``CalendarMatcher/searchLimitDays`` of local time).
    ///
    /// Local candidates are taken in increasing local order from the lowest local time any instant from
    /// `earliest` on can show; the search stops once no later local time can map to an earlier instant.
    ///
    /// After a change of the zone's rules (see ``ZoneRules/refresh(now:)``), when `earliest - 1` (the last second
    /// a running plan served) lies before the change was noticed and the old and new rules give it different
    /// offsets, local times up to its local time under the old rules count as served: a plan does not fire twice
    /// for one local time because the rules moved it.
    func next(atOrAfter earliest: Int64) -> Int64? {
        var table = rules.table(covering: earliest)
        let first = table.segment(at: earliest)
        var local = earliest + table.offsets[first]
        // A backward change within two days can show earlier local times again.
        var index = first
        while index < table.transitions.count, table.transitions[index] <= earliest + 2 * CivilTime.secondsPerDay {
            local = min(local, table.transitions[index] + table.offsets[index + 1])
            index += 1
        }
        if rules.isWatched, let served = servedLocal(before: earliest, in: table) {
            local = max(local, served + 1)
        }
        var best: Int64?
        var stop = Int64.max
        func take(_ instant: Int64, _ table: ZoneTable) {
            guard instant >= earliest, best.map({ instant < $0 }) ?? true else { return }
            best = instant
            var highest = Int64.min
            for segment in table.segment(at: earliest)...table.segment(at: instant) {
                highest = max(highest, table.offsets[segment])
            }
            stop = instant + highest
        }
        while let candidate = matcher.nextLocal(atOrAfter: local), candidate < stop {
            if !table.covers(candidate - 2 * CivilTime.secondsPerDay)
                || !table.covers(candidate + 2 * CivilTime.secondsPerDay)
            {
                table = rules.table(covering: candidate + 2 * CivilTime.secondsPerDay)
                if !table.covers(candidate - 2 * CivilTime.secondsPerDay) {
                    table = rules.table(covering: candidate - 2 * CivilTime.secondsPerDay)
                }
            }
            switch Self.resolve(candidate, in: table) {
            case .unique(let instant):
                take(instant, table)
                local = candidate + 1
            case .repeated(let firstInstant, let secondInstant, let change, let overlapEnd):
                if firstInstant >= earliest {
                    take(firstInstant, table)
                } else if runBoth {
                    take(secondInstant, table)
                }
                // Under `once`, once the first pass is over every later local time of this overlap is done.
                local = !runBoth && earliest >= change ? max(candidate + 1, overlapEnd) : candidate + 1
            case .skipped(let change, let gapEnd):
                if runAfterGap { take(change, table) }
                local = gapEnd
            }
        }
        return best
    }

    /// The local time, under the rules in force before the last change, of the second before `earliest`, when that
    /// second was served before the change was noticed and the change gave it another offset.
    private func servedLocal(before earliest: Int64, in table: ZoneTable) -> Int64? {
        guard let previous = rules.previous else { return nil }
        let served = earliest - 1
        guard served < previous.noticedAt, previous.table.covers(served) else { return nil }
        let old = previous.table.offsets[previous.table.segment(at: served)]
        guard old != table.offsets[table.segment(at: served)] else { return nil }
        return served + old
    }

    /// The instants at which local time `local` occurs.
    private static func resolve(_ local: Int64, in table: ZoneTable) -> Resolution {
        let guess = table.segment(at: local - table.offsets[table.segment(at: local)])
        let low = max(0, guess - 2)
        let high = min(table.offsets.count - 1, guess + 2)
        var a = -1
        var b = -1
        for segment in low...high {
            let offset = table.offsets[segment]
            if local >= table.segmentStart(segment) + offset && local < table.segmentEnd(segment) + offset {
                if a < 0 { a = segment }
                b = segment
            }
        }
        if a >= 0 && a == b {
            return .unique(local - table.offsets[a])
        }
        if a >= 0 {
            return .repeated(
                local - table.offsets[a], local - table.offsets[b],
                change: table.segmentEnd(a), overlapEnd: table.segmentEnd(a) + table.offsets[a])
        }
        // A gap: the segment whose local span ends at or before `local` and whose successor starts after it.
        for segment in low..<high {
            let change = table.segmentEnd(segment)
            if change + table.offsets[segment] <= local && local < change + table.offsets[segment + 1] {
                return .skipped(change: change, gapEnd: change + table.offsets[segment + 1])
            }
        }
        // Unreachable for a consistent table; treat the time as existing at the guessed offset.
        return .unique(local - table.offsets[guess])
    }
}
