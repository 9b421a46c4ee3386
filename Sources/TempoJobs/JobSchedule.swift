public import Foundation
public import TempoPlans

/// When a job runs: at a fixed rate, a fixed delay after the previous run ended, on a calendar plan or cron text,
/// or once at a date.
///
/// A schedule is a value; ``JobScheduler/register(_:_:options:fileID:line:body:)`` validates it and throws
/// ``JobError`` with ``JobError/Code/invalidSchedule`` naming the bad value, so building one never fails.
///
/// Dates are wall-clock dates (`Date`); the scheduler converts each wait into its own clock when the wait starts,
/// so a plan follows a change of the wall clock at the next date it computes.
///
/// `JobSchedule` is a value type and is `Sendable`.
public struct JobSchedule: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case every(Duration)
        case fixedDelay(Duration)
        case plan(Plan)
        case cron(String, TimeZone, LocalTimePolicy)
        case at(Date)
    }

    let kind: Kind

    /// Fixed rate: a run every `interval`, anchored so nothing drifts: run k is due at start + k · interval, the
    /// first one interval after the scheduler starts (or, with a stored cursor, on the grid of the last date
    /// served, so the phase survives a restart).
    ///
    /// A run still going at the next date meets the job's overlap policy (``JobOptions/Overlap``); dates that
    /// pass while the scheduler cannot run them go to its catch-up policy (``JobOptions/CatchUp``).
    ///
    /// - Parameter interval: The period, more than zero, at most 100 years.
    /// - Returns: The schedule.
    public static func every(_ interval: Duration) -> JobSchedule { JobSchedule(kind: .every(interval)) }

    /// Fixed delay: the next run is due `interval` after the previous one ended (its last attempt, retries
    /// included); the first one `interval` after the scheduler starts. Runs of such a job never overlap.
    ///
    /// - Parameter interval: The delay, more than zero, at most 100 years.
    /// - Returns: The schedule.
    public static func fixedDelay(_ interval: Duration) -> JobSchedule { JobSchedule(kind: .fixedDelay(interval)) }

    /// The dates of a calendar plan (TempoPlans), in its time zone and with its daylight-saving rule.
    ///
    /// - Parameter plan: The plan; one without future dates ends the job.
    /// - Returns: The schedule.
    public static func plan(_ plan: Plan) -> JobSchedule { JobSchedule(kind: .plan(plan)) }

    /// The dates cron text matches in a time zone (the syntax of `Plan.cron(_:in:localTimes:)`).
    ///
    /// The zone has no default: a job's dates must be the same on every replica, and the process's zone (`TZ`)
    /// can differ from one container to the next. Write `.gmt` for UTC.
    ///
    /// - Parameters:
    ///   - text: Five or six fields, or a macro such as `@hourly`.
    ///   - timeZone: The zone whose local time the fields speak.
    ///   - localTimes: What a local time that a daylight-saving change skips or repeats does (default `.cron`:
    ///     as cron does, see `LocalTimePolicy`).
    /// - Returns: The schedule; text that does not parse is rejected at registration, naming the field.
    public static func cron(
        _ text: String, in timeZone: TimeZone, localTimes: LocalTimePolicy = .cron
    ) -> JobSchedule {
        JobSchedule(kind: .cron(text, timeZone, localTimes))
    }

    /// Once, at `date`. A date already past when the scheduler starts runs at once unless the catch-up policy is
    /// ``JobOptions/CatchUp/skip`` (or a stored cursor says it ran).
    ///
    /// - Parameter date: The date.
    /// - Returns: The schedule.
    public static func at(_ date: Date) -> JobSchedule { JobSchedule(kind: .at(date)) }

    /// What the schedule is, in words, for example `every 300.0 seconds`.
    public var description: String {
        switch kind {
        case .every(let interval): "every \(interval)"
        case .fixedDelay(let interval): "fixed delay \(interval)"
        case .plan(let plan): "plan \(plan)"
        case .cron(let text, let zone, _): "cron \"\(text)\" in \(zone.identifier)"
        case .at(let date):
            // `Date`'s own description traps on a date that is not finite or far out of range.
            if date.timeIntervalSince1970.isFinite, abs(date.timeIntervalSince1970) < 1e11 {
                "at \(date)"
            } else {
                "at \(date.timeIntervalSince1970) s since 1970"
            }
        }
    }
}
