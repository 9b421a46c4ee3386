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
        var low = 0
        var high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid] <= t { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The first instant of segment `i` (`start` for the first).
    func segmentStart(_ i: Int) -> Int64 { i == 0 ? start : transitions[i - 1] }
    /// The first instant after segment `i` (`end` for the last).
    func segmentEnd(_ i: Int) -> Int64 { i == transitions.count ? end : transitions[i] }
}

/// One time zone's offsets, read once from the system's time-zone database (through Foundation's `TimeZone`)
/// and cached for the whole process, so that a plan's next date costs no Foundation call once warm.
///
/// The cached table covers a span around the instants asked about and grows on demand (each growth reads
/// the transitions of the new span with `TimeZone.nextDaylightSavingTimeTransition(after:)`, which reports
/// every change of offset, not only daylight-saving ones). An update of the time-zone database while the
/// process runs is not seen: the table is read once per process.
///
/// Thread safety: the table is guarded by a `TempoMutex`; readers take a snapshot.
final class ZoneRules: Sendable {
    let timeZone: TimeZone
    private let table: TempoMutex<ZoneTable?>

    private init(timeZone: TimeZone) {
        self.timeZone = timeZone
        self.table = TempoMutex(nil)
    }

    private static let cache = TempoMutex<[String: ZoneRules]>([:])

    /// The shared rules of `timeZone` (one object per identifier).
    static func rules(for timeZone: TimeZone) -> ZoneRules {
        cache.withLock { cache in
            if let rules = cache[timeZone.identifier] { return rules }
            let rules = ZoneRules(timeZone: timeZone)
            cache[timeZone.identifier] = rules
            return rules
        }
    }

    /// A table that covers `t`, building or growing the cached one when it does not.
    ///
    /// - Precondition: `t` lies within ±2⁶⁰ seconds of 1970 (callers pass plan instants, far inside that).
    func table(covering t: Int64) -> ZoneTable {
        if let table = table.withLock({ $0 }), table.covers(t) { return table }
        return table.withLock { table in
            if let current = table, current.covers(t) { return current }
            let yearSeconds: Int64 = 366 * 86_400
            let wantedStart = t - 2 * yearSeconds
            let wantedEnd = min(t + 60 * yearSeconds, ZoneTable.openEnd)
            let start = min(table?.start ?? wantedStart, wantedStart)
            let end = max(table?.end ?? wantedEnd, wantedEnd)
            let built = Self.build(timeZone, from: start, to: end)
            table = built
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
