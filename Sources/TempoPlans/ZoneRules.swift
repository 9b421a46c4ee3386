import Foundation
import TempoLocks

/// The UTC offsets of one time zone over a span of time, as a sorted table of transitions.
///
/// Instants are whole seconds since 1970-01-01 00:00:00 UTC. `offsets[i]` holds from `transitions[i - 1]`
/// (inclusive) to `transitions[i]` (exclusive), so `offsets.count == transitions.count + 1`; the table is
/// valid for instants in `start ..< end`.
struct ZoneTable: Sendable {
    let start: Int64
    let end: Int64
    let transitions: [Int64]
    let offsets: [Int64]

    /// The end of a table after whose last transition the zone has no more: far beyond any date a plan
    /// represents, and small enough that adding an offset never overflows.
    static let openEnd = Int64.max / 4

    func covers(_ t: Int64) -> Bool { t >= start && t < end }

    /// The index into ``offsets`` of the segment holding `t`.
    func segment(at t: Int64) -> Int {
        transitions.partitionIndex(after: t)
    }

    /// The first instant of segment `i` (`start` for the first).
    func segmentStart(_ i: Int) -> Int64 { i == 0 ? start : transitions[i - 1] }
    /// The first instant after segment `i` (`end` for the last).
    func segmentEnd(_ i: Int) -> Int64 { i == transitions.count ? end : transitions[i] }
}

/// One time zone's offsets, read from a ``ZoneRulesSource`` (by default the system's, through Foundation's
/// `TimeZone`) and cached, so that a plan's next date costs no Foundation call once warm.
///
/// The cached table covers a span around the instants asked about and grows on demand (each growth reads
/// the transitions of the new span with `TimeZone.nextDaylightSavingTimeTransition(after:)`, which reports
/// every change of offset, not only daylight-saving ones).
///
/// **Changes.** For a zone its source watches (the system's local zone, or a test's source), running plans call
/// ``refresh(now:)`` at each wakeup; when the source's fingerprint changed, the zone is resolved again and the
/// table is rebuilt from it. The table in force before the change is kept as ``Previous`` so that a plan does
/// not serve again a local time it served under the old rules (see ``ZonedCalendar/next(atOrAfter:)``).
/// Zones the source does not watch are read once per process.
///
/// Thread safety: the state is guarded by a `TempoMutex`; readers take a snapshot of the table.
final class ZoneRules: Sendable {
    /// The table in force before the last change of rules, and the wall-clock second the change was noticed.
    struct Previous: Sendable {
        let table: ZoneTable
        let noticedAt: Int64
    }

    private struct State: Sendable {
        var timeZone: TimeZone
        var fingerprint: String
        var table: ZoneTable?
        var previous: Previous?
        var revision: UInt64 = 0
    }

    /// The zone as the plan named it (`TimeZone.autoupdatingCurrent` for the local zone).
    let requested: TimeZone
    let source: any ZoneRulesSource
    /// Whether running plans check this zone for changes.
    let isWatched: Bool
    private let state: TempoMutex<State>

    init(_ zone: TimeZone, source: any ZoneRulesSource) {
        self.requested = zone
        self.source = source
        self.isWatched = source.watches(zone)
        let fingerprint = source.fingerprint(of: zone)
        self.state = TempoMutex(State(timeZone: source.resolve(zone), fingerprint: fingerprint))
    }

    private static let cache = TempoMutex<[String: ZoneRules]>([:])

    /// The shared rules of `timeZone` from the system (one object per identifier, and one for the local zone).
    static func rules(for timeZone: TimeZone) -> ZoneRules {
        let source = SystemZoneRules()
        let key = source.watches(timeZone) ? "autoupdating local zone" : timeZone.identifier
        return cache.withLock { cache in
            if let rules = cache[key] { return rules }
            let rules = ZoneRules(timeZone, source: source)
            cache[key] = rules
            return rules
        }
    }

    /// The zone whose rules are in force.
    var timeZone: TimeZone { state.withLock { $0.timeZone } }

    /// How many times the rules changed since this object was made.
    var revision: UInt64 { state.withLock { $0.revision } }

    /// The rules in force before the last change, if any.
    var previous: Previous? { state.withLock { $0.previous } }

    /// Reads the source's fingerprint and, when it changed, the zone again; the table is then rebuilt on demand.
    ///
    /// - Parameter now: The wall-clock second at which the check runs (recorded with the old table).
    /// - Returns: Whether the rules changed.
    @discardableResult
    func refresh(now: Int64) -> Bool {
        guard isWatched else { return false }
        let fingerprint = source.fingerprint(of: requested)
        guard state.withLock({ $0.fingerprint != fingerprint }) else { return false }
        let resolved = source.resolve(requested)
        return state.withLock { state in
            guard state.fingerprint != fingerprint else { return false }
            if let table = state.table { state.previous = Previous(table: table, noticedAt: now) }
            state.timeZone = resolved
            state.fingerprint = fingerprint
            state.table = nil
            state.revision += 1
            return true
        }
    }

    /// A table that covers `t`, building or growing the cached one when it does not.
    ///
    /// - Precondition: `t` lies within ±2⁶⁰ seconds of 1970 (callers pass plan instants, far inside that).
    func table(covering t: Int64) -> ZoneTable {
        if let table = state.withLock({ $0.table }), table.covers(t) { return table }
        return state.withLock { state in
            if let current = state.table, current.covers(t) { return current }
            let yearSeconds: Int64 = 366 * 86_400
            let wantedStart = t - 2 * yearSeconds
            let wantedEnd = min(t + 60 * yearSeconds, ZoneTable.openEnd)
            let start = min(state.table?.start ?? wantedStart, wantedStart)
            let end = max(state.table?.end ?? wantedEnd, wantedEnd)
            let built = Self.build(state.timeZone, from: start, to: end)
            state.table = built
            return built
        }
    }

    /// Reads the transitions of `timeZone` in `start ..< end` from Foundation.
    private static func build(_ timeZone: TimeZone, from start: Int64, to end: Int64) -> ZoneTable {
        let first = Date(timeIntervalSince1970: Double(start))
        var transitions: [Int64] = []
        var offsets: [Int64] = [Int64(timeZone.secondsFromGMT(for: first))]
        var cursor = first
        var openEnded = false
        while true {
            guard let next = timeZone.nextDaylightSavingTimeTransition(after: cursor) else {
                openEnded = true
                break
            }
            let seconds = Int64(next.timeIntervalSince1970.rounded())
            guard seconds < end else { break }
            if seconds > transitions.last ?? start {
                let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
                if offset != offsets[offsets.count - 1] {
                    transitions.append(seconds)
                    offsets.append(offset)
                }
            }
            cursor = next
        }
        return ZoneTable(
            start: start, end: openEnded ? ZoneTable.openEnd : end, transitions: transitions, offsets: offsets)
    }
}
