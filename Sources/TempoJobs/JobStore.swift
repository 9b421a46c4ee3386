public import Foundation

/// Where a scheduler keeps each job's cursor, so that a restarted process knows which dates it served.
///
/// The scheduler reads a job's cursor once when the job's planning starts and writes it once per run (before the
/// run or after it, per ``JobOptions/Guarantee``). A store error never stops the scheduler: it is logged at error
/// level naming the job (and the store's file or table), kept in ``JobStats/lastError``, and the job goes on
/// without a cursor (a failed read) or with its cursor unwritten (a failed write).
///
/// Conforming types must be safe to call from several tasks at once. TempoJobs has ``InMemoryJobStore`` (the
/// default) and ``JSONFileJobStore``; a database store can conform in a product of its own.
public protocol JobStore: Sendable {
    /// The cursor stored for `job`, or `nil` if none is.
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The cursor.
    /// - Throws: An error naming the store and the job when the cursor cannot be read.
    func cursor(for job: String) async throws -> JobCursor?

    /// Stores `cursor` for `job`, replacing the one before; the other jobs' cursors are kept.
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    /// - Throws: An error naming the store and the job when the cursor cannot be written.
    func save(_ cursor: JobCursor, for job: String) async throws

    /// Ends a run's claim and stores the run's cursor: what the scheduler calls after the last attempt of a run
    /// whose guarantee is ``JobOptions/Guarantee/atLeastOnce``. A store that shares the coordinator's database may do
    /// both in one write (TempoPostgres does: one statement); the default releases the claim, then calls
    /// ``save(_:for:)``.
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    ///   - claim: The run's claim, to release (``JobClaim/release(succeeded:)``) exactly once.
    ///   - succeeded: Whether the run succeeded.
    /// - Throws: An error naming the store and the job when the cursor cannot be written (the claim is released
    ///   in any case).
    func save(_ cursor: JobCursor, for job: String, releasing claim: any JobClaim, succeeded: Bool) async throws
}

extension JobStore {
    /// Releases `claim`, then saves `cursor` with ``save(_:for:)``.
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    ///   - claim: The run's claim.
    ///   - succeeded: Whether the run succeeded.
    /// - Throws: What ``save(_:for:)`` throws.
    public func save(_ cursor: JobCursor, for job: String, releasing claim: any JobClaim, succeeded: Bool)
        async throws
    {
        await claim.release(succeeded: succeeded)
        try await save(cursor, for: job)
    }
}

/// What a store keeps per job: the last date the job served (the planned date of its last run), and the format's
/// version.
///
/// `JobCursor` is a value type, `Codable` and `Sendable`.
public struct JobCursor: Codable, Sendable, Hashable {
    /// The format this version of TempoJobs writes; a cursor of a higher version is rejected on reading.
    public static let currentVersion = 1

    /// The planned date of the job's last run.
    public var lastDate: Date
    /// The format's version (``currentVersion`` when written by this version).
    public var version: Int

    /// Creates a cursor.
    ///
    /// - Parameters:
    ///   - lastDate: The planned date of the job's last run.
    ///   - version: The format's version (default ``currentVersion``).
    public init(lastDate: Date, version: Int = JobCursor.currentVersion) {
        self.lastDate = lastDate
        self.version = version
    }
}
