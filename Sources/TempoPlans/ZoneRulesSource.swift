import Foundation

/// Where a calendar plan reads its time zone's rules, and how a running plan learns that they changed.
///
/// A running plan (``PlanTimer``, ``PlanRegistry``, ``PlanFires``) asks ``watches(_:)`` once; for a watched zone
/// it compares ``fingerprint(of:)`` at each wakeup and at least every ``PlanTimer/zoneCheckInterval``, and after a
/// change reads the zone again with ``resolve(_:)`` and re-plans its next date. Tests inject a source of their own
/// (see `Plan.usingZoneRules(_:)`) to change the rules while a plan waits on virtual time.
///
/// Implementations are called from any thread and must be cheap in ``fingerprint(of:)``.
protocol ZoneRulesSource: Sendable {
    /// Whether the rules of `zone` can change while the process runs. Plans in other zones are never checked.
    func watches(_ zone: TimeZone) -> Bool
    /// A token of the rules `zone` resolves to now: a different token means the rules must be read again.
    func fingerprint(of zone: TimeZone) -> String
    /// The zone whose rules apply now; called when the rules are first needed and after each new fingerprint.
    func resolve(_ zone: TimeZone) -> TimeZone
}

/// The system's rules, as Foundation's `TimeZone` reports them.
///
/// What can change while a process runs, as measured with Swift 6.3.1 on Linux:
/// - **The local zone** (`TimeZone.autoupdatingCurrent`): Foundation resolves it from `TZFILE`, `TZ` and the
///   `/etc/localtime` link, and caches the result until `NSTimeZone.resetSystemTimeZone()`. This source watches
///   those with ``LocalZoneProbe`` and, when the fingerprint changes, resets Foundation's cache and reads
///   `TimeZone.current` again.
/// - **Named zones** (`Europe/Berlin`): Foundation reads their rules from the ICU data built into the Swift
///   runtime (`lib_FoundationICU`, reported by `TimeZone.timeZoneDataVersion`), not from `/usr/share/zoneinfo`,
///   and caches each zone for the life of the process. A `tzdata` package update changes neither this process
///   nor the next; a runtime with newer ICU data does, from the next process on. So named zones are not watched:
///   there is nothing in the process that could change.
struct SystemZoneRules: ZoneRulesSource {
    func watches(_ zone: TimeZone) -> Bool {
        zone == TimeZone.autoupdatingCurrent
    }

    func fingerprint(of zone: TimeZone) -> String {
        watches(zone) ? LocalZoneProbe.fingerprint() : TimeZone.timeZoneDataVersion
    }

    func resolve(_ zone: TimeZone) -> TimeZone {
        guard watches(zone) else { return zone }
        NSTimeZone.resetSystemTimeZone()
        return TimeZone.current
    }
}
