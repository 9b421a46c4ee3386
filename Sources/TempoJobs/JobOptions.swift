/// How one job runs: its overlap, failure, timeout, catch-up and delivery policies and its spread.
///
/// The defaults suit most periodic work: skip a date while the previous run is still going, log a failure and
/// go on, no timeout, skip dates missed while the process was down, write the cursor after the run (at least
/// once), no spread. ``JobScheduler/register(_:schedule:options:fileID:line:body:)`` validates the options and throws
/// ``JobError`` naming a bad value.
///
/// `JobOptions` is a value type and is `Sendable`.
public struct JobOptions: Sendable {
    /// What happens when a date comes while runs of the job are still going.
    public var overlap: Overlap
    /// What happens when a run throws or times out.
    public var failure: Failure
    /// The longest a run (one attempt) may take before its task is cancelled and the attempt counts as failed
    /// with ``JobError/Code/timedOut``; `nil` (default) for no limit. More than zero, at most 100 years.
    ///
    /// Cancellation is cooperative: a body that ignores it (or blocks its thread) keeps running past its timeout,
    /// and the attempt ends, as timed out, only when the body returns. Meanwhile the run is still going, so the
    /// job's overlap policy meets its next dates (skipping them by default), and the retry policy waits for that
    /// end too.
    public var timeout: Duration?
    /// What happens to missed dates: after downtime (known from the job's stored cursor), after a late wake-up,
    /// and dates the coordinator could not decide.
    public var catchUp: CatchUp
    /// When the job's cursor is written: before the run (at most once) or after it (at least once).
    public var delivery: Delivery
    /// A stable delay added to every date of the job, derived from its name (Jenkins' `H`): the same name gets
    /// the same delay in `0 ..< spread` on every restart, so many jobs of one schedule spread over the window.
    /// `nil` (default) for none. More than zero.
    public var spread: Duration?

    /// Creates options; every parameter has the default described on its property.
    ///
    /// - Parameters:
    ///   - overlap: What happens when a date comes while runs are still going (default ``Overlap/skip``).
    ///   - failure: What happens when a run throws or times out (default ``Failure/logAndContinue``).
    ///   - timeout: The longest one attempt may take (default none).
    ///   - catchUp: What happens to dates missed while the process was down (default ``CatchUp/skip``).
    ///   - delivery: When the cursor is written (default ``Delivery/atLeastOnce``).
    ///   - spread: The window of the stable per-name delay (default none).
    public init(
        overlap: Overlap = .skip,
        failure: Failure = .logAndContinue,
        timeout: Duration? = nil,
        catchUp: CatchUp = .skip,
        delivery: Delivery = .atLeastOnce,
        spread: Duration? = nil
    ) {
        self.overlap = overlap
        self.failure = failure
        self.timeout = timeout
        self.catchUp = catchUp
        self.delivery = delivery
        self.spread = spread
    }

    /// What happens when a date comes while runs of the job are still going.
    public enum Overlap: Sendable, Hashable {
        /// The date is skipped: it is counted in ``JobStats/skipped`` and logged at warning level (default).
        case skip
        /// The date waits until the running run ends, then runs at once; while one date waits, further dates are
        /// skipped (and counted).
        case queueOne
        /// Up to `limit` runs go at once (at least 1); a date beyond that is skipped (and counted).
        case concurrent(limit: Int)
    }

    /// What happens when a run throws or times out. The error is logged at error level with the job's metadata
    /// and kept in ``JobStats/lastError`` in every case; it never stops other jobs.
    public enum Failure: Sendable, Hashable {
        /// Log the error and wait for the next date (default).
        case logAndContinue
        /// Try again after a backoff, up to the policy's attempts (the first run included); then log and wait for
        /// the next date. No retry starts once the scheduler shuts down.
        case retry(RetryPolicy)
        /// Log the error and run the job no more (``JobStats/isStopped``); other jobs go on.
        case stopJob
    }

    /// What happens to missed dates: the dates after the stored cursor when the scheduler starts (the process was
    /// down), the dates that passed while the scheduler waited for one (the process was suspended, or the wall
    /// clock jumped ahead), the dates whose claims the ``JobCoordinator`` could not decide (its database was down),
    /// once it answers again, and, for at-least-once jobs on replicas, dates abandoned by a replica that died.
    ///
    /// One rule for all of them, on the plans' engine (`PlanTimer`'s): the dates are summarized (the latest and how
    /// many) in bounded time and memory, whatever the span. Dates not run count in ``JobStats/missed``, exactly for
    /// intervals, fixed dates and fixed delays, and for calendar and cron plans up to about a thousand per span,
    /// beyond which ``JobStats/missedIsLowerBound`` is set.
    public enum CatchUp: Sendable, Hashable {
        /// Missed dates are not run; the job waits for its next date (default). A late wake-up still runs the
        /// date it woke for; the dates after it that also passed count as missed.
        case skip
        /// If any date was missed, one run stands for all of them: its planned date is the latest missed date.
        case once
        /// Each missed date not older than `within` (from now) runs, oldest first, one after another; older ones
        /// count as missed. More than zero; a window longer than the downtime runs every missed date.
        case each(within: Duration)
    }

    /// When the job's cursor (the last date it served) is written to the store.
    public enum Delivery: Sendable, Hashable {
        /// The cursor is written before the body starts: a crash during the run loses that date (the run happens
        /// at most once).
        case atMostOnce
        /// The cursor is written after the run ended (succeeded, or failed after its last attempt): a crash during
        /// the run leaves the date to the catch-up policy on restart, so with ``CatchUp/once`` or
        /// ``CatchUp/each(within:)`` it runs again (at least once). Default. With replicas whose
        /// ``JobCoordinator`` reports abandoned dates (a run whose replica died mid-run), the replicas that go on
        /// also run those per the catch-up policy (see ``JobCoordinator/abandonedDates(job:before:logger:)``).
        case atLeastOnce
    }
}
