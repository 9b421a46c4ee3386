public import Foundation
public import Logging

/// What a job's body knows about its run: the date it stands for, how late it started, the attempt, a logger with
/// the job's metadata, and cancellation.
///
/// The run's task is cancelled when its timeout expires and when the scheduler's grace period at shutdown ends;
/// a body checks ``isCancelled`` (or calls `Task.checkCancellation()`, or awaits cancellable work) to stop early.
///
/// `JobContext` is a value type and is `Sendable`.
public struct JobContext: Sendable {
    /// The job's name.
    public let name: String
    /// The date this run stands for: a date of the schedule (spread included), or the latest missed date for a
    /// catch-up run.
    public let plannedDate: Date
    /// How late the run started: from its planned date (its due instant on the scheduler's clock) to the start of
    /// its body, the coordinator's claim and an at-most-once cursor write included (zero on time; for a catch-up
    /// run, from the planned date to the start). Retries keep the first attempt's lateness.
    public let lateness: Duration
    /// The attempt, 1 for the first; retries count up.
    public let attempt: Int
    /// The scheduler's logger with the metadata `job`, `job.date` and `job.attempt`.
    ///
    /// Made on each access (the metadata costs nothing to a run that does not log): keep it in a local to log
    /// several times.
    public var logger: Logger {
        var logger = schedulerLogger
        logger[metadataKey: "job"] = .stringConvertible(name)
        logger[metadataKey: "job.date"] = .stringConvertible(plannedDate.timeIntervalSince1970)
        logger[metadataKey: "job.attempt"] = .stringConvertible(attempt)
        return logger
    }
    private let schedulerLogger: Logger
    /// The claim the scheduler's ``JobCoordinator`` granted for this date: its fencing token, and
    /// ``JobClaim/isHeld()`` for a long run to learn that it lost the date (a ``LocalJobClaim`` by default).
    public let claim: any JobClaim

    /// Creates a context (the scheduler does; tests of a body may too).
    ///
    /// - Parameters:
    ///   - name: The job's name.
    ///   - plannedDate: The date the run stands for.
    ///   - lateness: How late it started.
    ///   - attempt: The attempt, from 1.
    ///   - logger: The logger, given the metadata above.
    ///   - claim: The claim of the date (default a ``LocalJobClaim``).
    public init(
        name: String, plannedDate: Date, lateness: Duration, attempt: Int, logger: Logger,
        claim: any JobClaim = LocalJobClaim()
    ) {
        self.claim = claim
        self.name = name
        self.plannedDate = plannedDate
        self.lateness = lateness
        self.attempt = attempt
        self.schedulerLogger = logger
    }

    /// Whether the run's task is cancelled (timeout, or the end of the grace period at shutdown).
    public var isCancelled: Bool { Task.isCancelled }
}
