public import Foundation

/// One finished run of a job, as its store's history keeps it: the date it stood for, what started it, where and
/// when it ran, its attempts and how it ended.
///
/// Written by the scheduler after the run's last attempt (``JobControlStore/record(_:cursor:releasing:)``), off the
/// run's path: the body has returned, and the next date does not wait for the write. `started` and `ended` are
/// read from the scheduler's wall clock (the `wallClock` of ``JobScheduler``).
///
/// `JobRunRecord` is a value type, `Codable` and `Sendable`.
public struct JobRunRecord: Codable, Sendable, Hashable {
    /// The job's name.
    public var job: String
    /// The date the run stood for: a date of the schedule, or the date of its run-now request.
    public var plannedDate: Date
    /// What started the run.
    public var trigger: JobRunTrigger
    /// The replica that ran it (``JobCoordinator/replica``).
    public var replica: String
    /// When the first attempt's body started.
    public var started: Date
    /// When the last attempt ended.
    public var ended: Date
    /// Attempts made, the first included (retries add one each).
    public var attempts: Int
    /// How the run ended.
    public var outcome: JobRunOutcome
    /// The last attempt's error as text, or `nil` for a run that succeeded.
    public var error: String?
    /// The run's fencing token (``JobClaim/fencingToken``; 0 for a local claim).
    public var fencingToken: Int64

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - plannedDate: The date the run stood for.
    ///   - trigger: What started the run.
    ///   - replica: The replica that ran it.
    ///   - started: When its first attempt started.
    ///   - ended: When its last attempt ended.
    ///   - attempts: Attempts made (at least 1).
    ///   - outcome: How it ended.
    ///   - error: The last error as text, if any.
    ///   - fencingToken: The claim's token (default 0).
    public init(
        job: String, plannedDate: Date, trigger: JobRunTrigger, replica: String, started: Date, ended: Date,
        attempts: Int, outcome: JobRunOutcome, error: String?, fencingToken: Int64 = 0
    ) {
        self.job = job
        self.plannedDate = plannedDate
        self.trigger = trigger
        self.replica = replica
        self.started = started
        self.ended = ended
        self.attempts = attempts
        self.outcome = outcome
        self.error = error
        self.fencingToken = fencingToken
    }

    /// How long the run took, from its start to its end (zero when the wall clock went back meanwhile).
    public var duration: Duration {
        let seconds = max(0, ended.timeIntervalSince(started))
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
