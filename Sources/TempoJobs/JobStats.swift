/// What one job did so far: runs started, succeeded and failed, dates skipped, retries, timeouts, the last error.
///
/// Read with ``JobScheduler/stats(for:)``; a snapshot, taken under the scheduler's lock.
///
/// `JobStats` is a value type and is `Sendable`.
public struct JobStats: Sendable, Hashable {
    /// Runs started (a run with retries counts once).
    public var started = 0
    /// Dates the scheduler's ``JobCoordinator`` refused (another replica claimed them); not counted in
    /// ``started``.
    public var claimedElsewhere = 0
    /// Runs that ended without an error (on some attempt).
    public var succeeded = 0
    /// Runs that ended with an error after their last attempt.
    public var failed = 0
    /// Attempts that threw or timed out, retried or not.
    public var failedAttempts = 0
    /// Attempts that ran out of their timeout.
    public var timedOut = 0
    /// Retries started.
    public var retries = 0
    /// Dates skipped by the overlap policy (a run was still going).
    public var skipped = 0
    /// Dates a late wake-up slept through (coalesced into one run), and missed dates the catch-up policy did not
    /// run: after downtime, after a late wake-up, and dates the coordinator could not decide (its database was
    /// down).
    public var missed = 0
    /// Whether ``missed`` is a lower bound: a span of missed dates of a calendar or composed plan is counted one
    /// date at a time, at most a thousand or so per span (interval plans and fixed dates are counted exactly), so
    /// that a wall clock set decades ahead costs milliseconds. The dates beyond the count were missed all the same.
    public var missedIsLowerBound = false
    /// Dates that came while the job was paused (``JobControlStore/pause(job:)``) and did not run; the paused
    /// span is not caught up after a resume.
    public var skippedWhilePaused = 0
    /// Whether the job is paused now, as the scheduler last read its store's control.
    public var isPaused = false
    /// Run-now runs started (``JobControlStore/requestRun(of:)``); counted in ``started`` too.
    public var runNow = 0
    /// Runs going right now.
    public var running = 0
    /// Whether the job stopped for good: its ``JobOptions/Failure/stopJob`` policy met a failure, or its
    /// schedule has no more dates.
    public var isStopped = false
    /// The last error a run threw (or the timeout, or a store error), as text; `nil` if none.
    public var lastError: String?

    /// Creates empty statistics.
    public init() {}
}
