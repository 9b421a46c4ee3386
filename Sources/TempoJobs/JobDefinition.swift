import Foundation
import Tempo
import TempoPlans

/// A registered job, validated: its name, resolved schedule, options, stable spread and body.
final class JobDefinition: Sendable {
    /// A schedule in the form the planner runs.
    enum Schedule: Sendable {
        /// The grid `anchor + k · interval`; the anchor is fixed when planning starts.
        case every(Duration)
        case fixedDelay(Duration)
        case plan(Plan)
        /// One date (a plan of it), kept apart so a past date can count as missed without a cursor.
        case once(Date, Plan)
    }

    let name: String
    /// The job's name with the site that registered it: what the job's waits are armed with (``TimerLabel/arming``),
    /// so that TempoTesting's armed-timer check names a job still waiting for a date.
    let label: TimerLabel
    let schedule: Schedule
    /// The schedule in words (``JobSchedule/description``), as the job is published to a ``JobControlStore``.
    let scheduleDescription: String
    let options: JobOptions
    let offset: Duration
    let seed: UInt64?
    let body: @Sendable (JobContext) async throws -> Void

    init(
        name: String,
        schedule: JobSchedule,
        options: JobOptions,
        seed: UInt64?,
        label: TimerLabel,
        body: @escaping @Sendable (JobContext) async throws -> Void
    ) throws(JobError) {
        guard !name.isEmpty else { throw JobError(.emptyName, message: "a job name must not be empty") }
        self.name = name
        self.label = label
        self.schedule = try Self.resolve(schedule, job: name)
        self.scheduleDescription = schedule.description
        try Self.validate(options, job: name)
        self.options = options
        self.offset = options.spread.map { StableHash.offset(of: name, spread: $0) } ?? .zero
        self.seed = seed.map { $0 ^ StableHash.of(name) }
        self.body = body
    }

    /// The longest duration TempoJobs accepts for an interval, delay, timeout, spread, backoff, grace period or
    /// abandon delay: 100 years (36,500 days). Longer values are rejected with an error naming them, so every wait
    /// and every date the scheduler computes stays within the range of its clocks and of `Date`-to-`Duration`
    /// conversions.
    static let maximumDuration = Duration.seconds(36_500 * 86_400)

    /// Throws `code` naming `value` when it is longer than ``maximumDuration``.
    static func checkMaximum(_ value: Duration, _ what: String, _ code: JobError.Code, job: String?) throws(JobError) {
        guard value <= maximumDuration else {
            throw JobError(
                code, job: job,
                message: "\(what) must be at most 100 years (36,500 days), got \(value)\(RetryPolicy.forJob(job))")
        }
    }

    private static func resolve(_ schedule: JobSchedule, job: String) throws(JobError) -> Schedule {
        func invalid(_ message: String) -> JobError {
            JobError(.invalidSchedule, job: job, message: "\(message) (job \"\(job)\")")
        }
        do {
            switch schedule.kind {
            case .every(let interval):
                _ = try Plan.every(interval, anchor: Date(timeIntervalSince1970: 0))
                try checkMaximum(interval, "an interval", .invalidSchedule, job: job)
                return .every(interval)
            case .fixedDelay(let interval):
                guard interval > .zero else { throw invalid("a fixed delay must be more than zero, got \(interval)") }
                try checkMaximum(interval, "a fixed delay", .invalidSchedule, job: job)
                return .fixedDelay(interval)
            case .plan(let plan):
                return .plan(plan)
            case .cron(let text, let zone, let localTimes):
                return .plan(try Plan.cron(text, in: zone, localTimes: localTimes))
            case .at(let date):
                return .once(date, try Plan.dates([date]))
            }
        } catch let error as PlanError {
            throw invalid("invalid schedule \(schedule): \(error)")
        } catch let error as JobError {
            throw error
        } catch {
            throw invalid("invalid schedule \(schedule): \(error)")
        }
    }

    private static func validate(_ options: JobOptions, job: String) throws(JobError) {
        func invalid(_ message: String) -> JobError {
            JobError(.invalidOptions, job: job, message: "\(message) (job \"\(job)\")")
        }
        if let timeout = options.timeout {
            guard timeout > .zero else { throw invalid("a timeout must be more than zero, got \(timeout)") }
            try checkMaximum(timeout, "a timeout", .invalidOptions, job: job)
        }
        if let spread = options.spread {
            guard spread > .zero else { throw invalid("a spread must be more than zero, got \(spread)") }
            try checkMaximum(spread, "a spread", .invalidOptions, job: job)
        }
        if case .concurrent(let limit) = options.overlap.kind, limit < 1 {
            throw invalid("a concurrency limit must be at least 1, got \(limit)")
        }
        if case .each(let within) = options.catchUp.kind, within <= .zero {
            throw invalid("a catch-up window must be more than zero, got \(within)")
        }
        if case .retry(let policy) = options.failure.kind {
            try policy.validate(job: job)
        }
    }
}

extension Date {
    /// The date `duration` later (earlier when negative).
    func adding(_ duration: Duration) -> Date {
        addingTimeInterval(Backoff.seconds(duration))
    }

    /// The duration from this date to `other` (negative when `other` is earlier), saturated at ±2⁶² seconds (far
    /// beyond any date a schedule accepts) and zero for a date that is not finite, so it never traps.
    func duration(to other: Date) -> Duration {
        let seconds = other.timeIntervalSince(self)
        guard seconds.isFinite else { return .zero }
        return .seconds(min(max(seconds, -0x1p62), 0x1p62))
    }
}
