/// How one job runs: its overlap, failure, timeout, catch-up and guarantee policies and its spread.
///
/// The policies are structs with static members, not enums, so that later versions can add one; switch over
/// them with a `default` branch, or compare with `==`.
///
/// The defaults suit most periodic work: skip a date while the previous run is still going, log a failure and
/// go on, no timeout, skip dates missed while the process was down, write the cursor after the run (at least
/// once), no spread. ``JobScheduler/register(_:_:options:fileID:line:body:)`` validates the options and throws
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
    public var guarantee: Guarantee
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
    ///   - guarantee: When the cursor is written (default ``Guarantee/atLeastOnce``).
    ///   - spread: The window of the stable per-name delay (default none).
    public init(
        overlap: Overlap = .skip,
        failure: Failure = .logAndContinue,
        timeout: Duration? = nil,
        catchUp: CatchUp = .skip,
        guarantee: Guarantee = .atLeastOnce,
        spread: Duration? = nil
    ) {
        self.overlap = overlap
        self.failure = failure
        self.timeout = timeout
        self.catchUp = catchUp
        self.guarantee = guarantee
        self.spread = spread
    }

    /// What happens when a date comes while runs of the job are still going.
    ///
    /// `Overlap` is a value type and is `Sendable`; more policies may be added in later versions.
    public struct Overlap: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case skip
            case queueOne
            case concurrent(limit: Int)
        }

        let kind: Kind

        /// The date is skipped: it is counted in ``JobStats/skipped`` and logged at warning level (default).
        public static let skip = Overlap(kind: .skip)
        /// The date waits until the running run ends, then runs at once; while one date waits, further dates are
        /// skipped (and counted).
        public static let queueOne = Overlap(kind: .queueOne)

        /// Up to `limit` runs go at once (at least 1); a date beyond that is skipped (and counted).
        ///
        /// - Parameter limit: The most runs at once; at least 1 (validated at registration).
        /// - Returns: The policy.
        public static func concurrent(limit: Int) -> Overlap { Overlap(kind: .concurrent(limit: limit)) }

        /// The policy as written in code, for example `concurrent(limit: 3)`.
        public var description: String {
            switch kind {
            case .skip: "skip"
            case .queueOne: "queueOne"
            case .concurrent(let limit): "concurrent(limit: \(limit))"
            }
        }
    }

    /// What happens when a run throws or times out. The error is logged at error level with the job's metadata
    /// and kept in ``JobStats/lastError`` in every case; it never stops other jobs.
    ///
    /// A run that throws ``JobError/Code/claimLost`` (its claim no longer holds: a fenced write was refused) ends
    /// there under every policy: it is not retried (no attempt can succeed with that claim, and a retry would keep
    /// the job busy while its next dates come) and it does not stop the job. The date belongs to the replica that
    /// took it over, or, if none did, to the catch-up of abandoned dates.
    ///
    /// `Failure` is a value type and is `Sendable`; more policies may be added in later versions.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case logAndContinue
            case retry(RetryPolicy)
            case stopJob
        }

        let kind: Kind

        /// Log the error and wait for the next date (default).
        public static let logAndContinue = Failure(kind: .logAndContinue)
        /// Log the error and run the job no more (``JobStats/isStopped``); other jobs go on.
        public static let stopJob = Failure(kind: .stopJob)

        /// Try again after a backoff, up to the policy's attempts (the first run included); then log and wait for
        /// the next date. No retry starts once the scheduler shuts down, and a shutdown ends a retry's wait at once.
        ///
        /// - Parameter policy: The attempts and the waits between them (validated at registration).
        /// - Returns: The policy.
        public static func retry(_ policy: RetryPolicy) -> Failure { Failure(kind: .retry(policy)) }

        /// The policy as written in code, for example `stopJob`.
        public var description: String {
            switch kind {
            case .logAndContinue: "logAndContinue"
            case .retry(let policy): "retry(attempts: \(policy.attempts))"
            case .stopJob: "stopJob"
            }
        }
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
    ///
    /// `CatchUp` is a value type and is `Sendable`; more policies may be added in later versions.
    public struct CatchUp: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case skip
            case once
            case each(within: Duration)
        }

        let kind: Kind

        /// Missed dates are not run; the job waits for its next date (default). A late wake-up still runs the
        /// date it woke for; the dates after it that also passed count as missed.
        public static let skip = CatchUp(kind: .skip)
        /// If any date was missed, one run stands for all of them: its planned date is the latest missed date.
        public static let once = CatchUp(kind: .once)

        /// Each missed date not older than `within` (from now) runs, oldest first, one after another; older ones
        /// count as missed.
        ///
        /// - Parameter within: The window; more than zero (validated at registration). A window longer than the
        ///   downtime runs every missed date.
        /// - Returns: The policy.
        public static func each(within: Duration) -> CatchUp { CatchUp(kind: .each(within: within)) }

        /// The policy as written in code, for example `each(within: 60.0 seconds)`.
        public var description: String {
            switch kind {
            case .skip: "skip"
            case .once: "once"
            case .each(let within): "each(within: \(within))"
            }
        }
    }

    /// When the job's cursor (the last date it served) is written to the store: what a crash can cost.
    ///
    /// `Guarantee` is a value type and is `Sendable`.
    public struct Guarantee: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case atMostOnce
            case atLeastOnce
        }

        let kind: Kind

        /// The cursor is written before the body starts: a crash during the run loses that date (the run happens
        /// at most once).
        public static let atMostOnce = Guarantee(kind: .atMostOnce)
        /// The cursor is written after the run ended (succeeded, or failed after its last attempt): a crash during
        /// the run leaves the date to the catch-up policy on restart, so with ``CatchUp/once`` or
        /// ``CatchUp/each(within:)`` it runs again (at least once). Default. With replicas whose
        /// ``JobCoordinator`` reports abandoned dates (a run whose replica died mid-run), the replicas that go on
        /// also run those per the catch-up policy (see ``JobCoordinator/abandonedDates(job:before:logger:)``).
        public static let atLeastOnce = Guarantee(kind: .atLeastOnce)

        /// `atMostOnce` or `atLeastOnce`.
        public var description: String {
            switch kind {
            case .atMostOnce: "atMostOnce"
            case .atLeastOnce: "atLeastOnce"
            }
        }
    }
}
