public import Foundation
public import Logging

/// Decides, before each run, whether this process runs a job's planned date: the hook for several replicas that
/// share a database, so that each date runs on one of them.
///
/// ``JobScheduler`` asks ``claim(job:plannedDate:logger:)`` once per date, before the cursor is written (at most
/// once) and before the body; a refused date is not run here and is counted in ``JobStats/claimedElsewhere``. The
/// claim granted is handed to the body as ``JobContext/claim`` and released after the run (after the last attempt,
/// before an at-least-once cursor is written).
///
/// The default, ``LocalJobCoordinator``, grants every date (one process, as without a coordinator). A coordinator
/// retries and logs its own errors; when it still cannot decide (its database is down), it throws
/// ``JobError/Code/coordinatorUnavailable``: the scheduler does not run the date then, and hands it to the job's
/// catch-up policy as soon as a later claim of the job is decided again, exactly as dates missed while the
/// process was down (a date is better late, or left to the policy, than run twice).
///
/// Conforming types must be safe to call from several tasks at once.
public protocol JobCoordinator: Sendable {
    /// Claims `plannedDate` of `job` for this process, or returns `nil` if another process holds or held it.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - plannedDate: The date the run stands for.
    ///   - logger: The scheduler's logger, for errors and refusals.
    /// - Returns: The claim, or `nil` when the run must not start here (another process holds or held the date).
    /// - Throws: ``JobError`` with ``JobError/Code/coordinatorUnavailable`` when it cannot decide (after its own
    ///   retries): the date is then left to the job's catch-up policy.
    func claim(job: String, plannedDate: Date, logger: Logger) async throws(JobError) -> (any JobClaim)?

    /// The dates of `job` up to `date` whose runs were abandoned: claimed, never released, and their claims lost
    /// (the replica that held one died, froze or was cut off past its lease), oldest first.
    ///
    /// ``JobScheduler`` asks it before each planned date of a job whose guarantee is
    /// ``JobOptions/Guarantee/atLeastOnce`` and whose catch-up policy is not ``JobOptions/CatchUp/skip``, and
    /// hands the dates to the catch-up policy; each date it runs is claimed again first, so of several replicas
    /// that find one abandoned date, one runs it. A coordinator may answer from a cache or skip the question
    /// (return `[]`) to bound its cost; it never throws (errors are logged and answered with `[]`). The default
    /// implementation returns `[]` (one process: a run ends with its process, and the cursor's catch-up covers it).
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - date: The planned date about to run; only earlier dates are returned.
    ///   - logger: The scheduler's logger, for errors.
    /// - Returns: The abandoned dates before `date`, oldest first.
    func abandonedDates(job: String, before date: Date, logger: Logger) async -> [Date]

    /// Marks abandoned dates of `job` done without running them: the job's catch-up policy ran another date in their
    /// stead (``JobOptions/CatchUp/once``) or left them out (outside the window of
    /// ``JobOptions/CatchUp/each(within:)``), so that no replica, this one after a restart included, finds and runs
    /// them later.
    ///
    /// ``JobScheduler`` calls it with dates that ``abandonedDates(job:before:logger:)`` returned, before it runs the
    /// dates the policy keeps. A date that another replica claimed again meanwhile must be left as it is (its run
    /// goes on). It never throws: an error is logged, and the dates are then reported again later; the scheduler
    /// settles them again before its next date (a restarted one hands them to the policy again). The default
    /// implementation does nothing: a coordinator that wraps another forwards this call
    /// with ``abandonedDates(job:before:logger:)``.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - dates: Abandoned dates of the job, oldest first.
    ///   - logger: The scheduler's logger, for errors.
    func settleAbandoned(job: String, dates: [Date], logger: Logger) async

    /// This process's name among the replicas, recorded with each run in a ``JobControlStore``'s history and with
    /// each job the scheduler publishes. The default is the host's name.
    var replica: String { get }
}

extension JobCoordinator {
    /// Returns `[]`: no run is ever abandoned elsewhere.
    ///
    /// - Parameters:
    ///   - job: Unused.
    ///   - date: Unused.
    ///   - logger: Unused.
    /// - Returns: `[]`.
    public func abandonedDates(job: String, before date: Date, logger: Logger) async -> [Date] { [] }

    /// Does nothing: no run is ever abandoned elsewhere.
    ///
    /// - Parameters:
    ///   - job: Unused.
    ///   - dates: Unused.
    ///   - logger: Unused.
    public func settleAbandoned(job: String, dates: [Date], logger: Logger) async {}

    /// The host's name (`ProcessInfo.hostName`).
    public var replica: String { ProcessInfo.processInfo.hostName }
}

/// A granted claim on one planned date of a job: a fencing token, and a way for the body to learn that the claim
/// was lost (its lease expired and the date may run elsewhere).
///
/// Thread-safety: conforming types must be safe to use from several tasks at once.
public protocol JobClaim: Sendable {
    /// The fencing token: a number the coordinator never grants twice for a job and that grows with each grant,
    /// so that a store written by runs can refuse the writes of a stale holder.
    var fencingToken: Int64 { get }

    /// Whether this process still holds the claim, as the coordinator knows it now (a database claim asks the
    /// database: it is `false` once the lease expired, whether or not another process took the date over, and
    /// `false` when the database cannot be reached).
    ///
    /// - Returns: `true` while the claim holds.
    func isHeld() async -> Bool

    /// Ends the claim after the run; the scheduler calls it once, after the last attempt.
    ///
    /// - Parameter succeeded: Whether the run succeeded.
    func release(succeeded: Bool) async
}

/// The default ``JobCoordinator``: grants every date to this process (token 0, always held).
///
/// `LocalJobCoordinator` is a value type and is `Sendable`.
public struct LocalJobCoordinator: JobCoordinator {
    /// Creates the coordinator.
    public init() {}

    /// Grants the date.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - plannedDate: The date.
    ///   - logger: Unused.
    /// - Returns: A claim that always holds.
    public func claim(job: String, plannedDate: Date, logger: Logger) async throws(JobError) -> (any JobClaim)? {
        LocalJobClaim()
    }
}

/// The claim of ``LocalJobCoordinator``: token 0, always held.
///
/// `LocalJobClaim` is a value type and is `Sendable`.
public struct LocalJobClaim: JobClaim {
    /// Creates the claim.
    public init() {}

    /// Always 0.
    public var fencingToken: Int64 { 0 }

    /// Always `true`.
    ///
    /// - Returns: `true`.
    public func isHeld() async -> Bool { true }

    /// Does nothing.
    ///
    /// - Parameter succeeded: Unused.
    public func release(succeeded: Bool) async {}
}
