#if Postgres
import Foundation
public import Logging
public import PostgresNIO
public import TempoJobs

/// A `JobStore` in the table `tempo_cursors` of a PostgreSQL database, so that every replica, restarted or new,
/// plans from the cluster's cursor.
///
/// A save never moves a job's cursor back: when two replicas write, the later date stays. After an at-least-once
/// run, ``save(_:for:releasing:succeeded:)`` finishes a ``PostgresJobClaim`` of the same client and writes the
/// cursor in one statement. Database errors are retried per ``PostgresRetry`` (each logged at warning level), then
/// thrown as `JobError` (`unreadable` or `unwritable`, naming the table and the job), which the scheduler logs and
/// goes on.
/// Call ``PostgresSchema/migrate(on:logger:)`` first.
///
/// It is a `JobControlStore` too (the tables `tempo_jobs`, `tempo_run_requests` and `tempo_runs`): operators pause,
/// resume and run jobs now on every replica, and each run is kept in the job's history (the last
/// ``historyLimit``). A run's history row is added by the statement that finishes its claim and writes its cursor,
/// so the winner of a date still makes two statements (the claim, then that one). Each scheduler reads the control
/// of all jobs in one query every ``controlInterval``: keep it under the coordinator's lease
/// (``PostgresJobCoordinator/Configuration/lease``), as the defaults are (3 s and 10 s), so that every replica
/// honours a pause within one lease.
///
/// Thread-safety: a value type; every method may be called from any task (the client pools its connections).
public struct PostgresJobStore: JobStore {
    let client: PostgresClient
    let retry: PostgresRetry
    let logger: Logger
    /// The most runs kept per job in `tempo_runs` (the oldest are removed by the statement that adds a run).
    public let historyLimit: Int
    /// How often a scheduler reads the control of all jobs (``controlUpdates()``).
    public let controlInterval: Duration

    /// Creates a store on `client`, whose `run()` must be going while the store is used.
    ///
    /// - Parameters:
    ///   - client: The database's client.
    ///   - retry: How failed calls are retried (default: the defaults of ``PostgresRetry``).
    ///   - historyLimit: The most runs kept per job: 0 keeps none, at most 1,000,000 (default 100).
    ///   - controlInterval: How often a scheduler reads the operators' control (default 3 s; at least 10 ms, at most
    ///     an hour).
    ///   - logger: Where retries are logged.
    /// - Throws: `JobError` `invalidConfiguration` naming a bad retry value, history limit or interval.
    public init(
        client: PostgresClient, retry: PostgresRetry = PostgresRetry(), historyLimit: Int = 100,
        controlInterval: Duration = .seconds(3), logger: Logger
    ) throws(JobError) {
        try retry.validate()
        guard (0...1_000_000).contains(historyLimit) else {
            throw JobError(
                .invalidConfiguration,
                message: "the history limit must be between 0 and 1,000,000 runs per job, not \(historyLimit)")
        }
        guard controlInterval >= .milliseconds(10), controlInterval <= .seconds(3600) else {
            throw JobError(
                .invalidConfiguration,
                message: "the control interval must be between 10 ms and 1 hour, not \(controlInterval)")
        }
        self.client = client
        self.retry = retry
        self.historyLimit = historyLimit
        self.controlInterval = controlInterval
        self.logger = logger
    }

    /// The cursor stored for `job`, or `nil`.
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The cursor.
    /// - Throws: `JobError` `unreadable` after the retries, `newerVersion` for a cursor of a newer version.
    public func cursor(for job: String) async throws -> JobCursor? {
        let row: (Date, Int64)?
        do {
            row = try await retry.run("reading a cursor", logger: logger, metadata: ["job": "\(job)"]) {
                let rows = try await client.query(
                    "SELECT last_date, version::bigint FROM tempo_cursors WHERE job = \(job)", logger: logger)
                var found: (Date, Int64)?
                for try await (date, version) in rows.decode((Date, Int64).self) { found = (date, version) }
                return found
            }
        } catch {
            throw JobError.store(
                .unreadable, job: job, at: "tempo_cursors", "cannot read: \(String(reflecting: error))")
        }
        guard let (date, version) = row else { return nil }
        guard version <= Int64(JobCursor.currentVersion) else {
            throw JobError.store(
                .newerVersion, job: job, at: "tempo_cursors",
                "cursor version \(version) is newer than \(JobCursor.currentVersion)")
        }
        return JobCursor(lastDate: date, version: Int(version))
    }

    /// Stores `cursor` for `job` unless a later date is stored already.
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    /// - Throws: `JobError` `unwritable` after the retries.
    public func save(_ cursor: JobCursor, for job: String) async throws {
        do {
            try await retry.run("writing a cursor", logger: logger, metadata: ["job": "\(job)"]) {
                _ = try await client.query(
                    """
                    INSERT INTO tempo_cursors (job, last_date, version) VALUES (\(job), \(cursor.lastDate), \
                    \(cursor.version)) ON CONFLICT (job) DO UPDATE SET last_date = excluded.last_date, \
                    version = excluded.version WHERE tempo_cursors.last_date < excluded.last_date
                    """, logger: logger)
            }
        } catch {
            throw JobError.store(
                .unwritable, job: job, at: "tempo_cursors", "cannot write: \(String(reflecting: error))")
        }
    }

    /// Ends a run's claim and stores the run's cursor, what the scheduler calls after an at-least-once run. For a
    /// ``PostgresJobClaim`` whose coordinator uses this store's client, it is one statement (one round trip): the
    /// renewals stop, and the claim's row is marked finished on the conditions of
    /// ``PostgresJobClaim/release(succeeded:)`` (its token, its lease not run out; nothing when the claim was
    /// lost) while the cursor is written as ``save(_:for:)`` writes it. Another claim is released, then the cursor
    /// saved (two calls).
    ///
    /// A statement that fails after the retries leaves the claim unfinished (its lease then runs out, and its date
    /// is an abandoned date for the catch-up policy) and the cursor unwritten.
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    ///   - claim: The run's claim, released exactly once.
    ///   - succeeded: Whether the run succeeded, recorded in the claim's row.
    /// - Throws: `JobError` `unwritable` after the retries.
    public func save(_ cursor: JobCursor, for job: String, releasing claim: any JobClaim, succeeded: Bool)
        async throws
    {
        guard let claim = claim as? PostgresJobClaim, claim.client === client else {
            await claim.release(succeeded: succeeded)
            try await save(cursor, for: job)
            return
        }
        guard claim.endRenewal() else {
            try await save(cursor, for: job)
            return
        }
        do {
            try await retry.run("finishing a claim and writing a cursor", logger: logger, metadata: ["job": "\(job)"]) {
                _ = try await client.query(
                    """
                    WITH finished AS (UPDATE tempo_claims SET finished_at = now(), succeeded = \(succeeded) \
                    WHERE job = \(claim.job) AND planned_at = \(claim.plannedDate) AND token = \(claim.fencingToken) \
                    AND lease_until > now()) \
                    INSERT INTO tempo_cursors (job, last_date, version) VALUES (\(job), \(cursor.lastDate), \
                    \(cursor.version)) ON CONFLICT (job) DO UPDATE SET last_date = excluded.last_date, \
                    version = excluded.version WHERE tempo_cursors.last_date < excluded.last_date
                    """, logger: logger)
            }
        } catch {
            throw JobError.store(
                .unwritable, job: job, at: "tempo_cursors and tempo_claims",
                "cannot finish the claim and write: \(String(reflecting: error))")
        }
    }
}
#endif
