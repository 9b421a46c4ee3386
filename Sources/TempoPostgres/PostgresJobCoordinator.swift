#if Postgres
public import Foundation
public import Logging
public import PostgresNIO
import Synchronization
import Tempo
public import TempoJobs

/// A `JobCoordinator` on PostgreSQL: each planned date of a job runs on one replica of those sharing the
/// database, whatever their clocks say.
///
/// Before a run, the replica inserts the row (job, planned date) in `tempo_claims` with a new fencing token from
/// the sequence `tempo_claim_tokens` and a lease until the server's `now()` plus ``Configuration/lease``. The
/// primary key is the judge: of replicas claiming one date, exactly one gets the row. The holder renews the lease
/// every third of it while the run goes on, and marks the row finished after the run. A claim whose lease expired
/// before it was finished (its replica died, froze or was cut off) may be taken over by a replica that plans the
/// same date again (a catch-up run): it gets a new token, and the stale holder's ``PostgresJobClaim/isHeld()`` and
/// renewals fail. A finished date is never claimed again.
///
/// Abandoned dates: a date whose claim was never released and whose lease ran out (its replica died, froze or was
/// cut off mid-run) is reported by ``abandonedDates(job:before:logger:)``, and the scheduler hands it to the job's
/// catch-up policy: with at-least-once delivery and a catch-up of `once` or `each(within:)`, a survivor claims it
/// again (with a new token) and runs it. The dates the policy does not run (all but the latest under `once`, those
/// outside the window under `each(within:)`) are marked finished without running
/// (``settleAbandoned(job:dates:logger:)``), so that no replica runs them later. The table is read once per third of
/// a lease per coordinator, for all jobs at once, so the cost does not grow with the number of jobs.
///
/// Errors: each database call is retried per ``Configuration/retry``, each failure (an error, or no answer within
/// ``PostgresRetry/attemptTimeout``) logged at warning level; when a claim still fails, it throws `JobError`
/// `coordinatorUnavailable` (logged at error level): the date does not run here, and the scheduler leaves it to the
/// job's catch-up policy once the database answers again.
///
/// Retention: finished claims of dates older than ``Configuration/retention`` (30 days by default), and unfinished
/// ones whose lease ran out (abandoned, and too old to be claimed or listed any more), are removed, at
/// most once an hour per coordinator, by a background task that a claim starts (1,000 rows per statement, on one
/// connection of the client's pool; claims never wait for it). A date older than the retention is never claimed
/// (the claim statement itself refuses it, on the server's clock, and `claim` returns `nil`), so a removed row
/// never lets its date run again. Rows are removed only once their date is an hour older than that, against the
/// server's clock being set back.
///
/// Thread-safety: a final class whose mutable state (the abandoned dates read last, the retention task) is in a
/// `Mutex`; every method may be called from any task.
public final class PostgresJobCoordinator: JobCoordinator {
    /// Settings of the claims.
    public struct Configuration: Sendable {
        /// How long a claim holds without renewal, on the database server's clock (default 10 s). Renewed every
        /// third of it while the run goes on. More than zero.
        public var lease: Duration
        /// How failed database calls are retried.
        public var retry: PostgresRetry
        /// How long claims are kept (default 30 days, at least an hour), counted from their planned date on the
        /// database server's clock: a date older than this is never claimed (a catch-up of such a date does not
        /// run), and finished claims are removed an hour after their date passed it. Unfinished claims are kept.
        public var retention: Duration
        /// How often, at most, a coordinator looks for finished claims to remove (an hour; shorter in tests).
        package var retentionInterval: Duration = .seconds(3600)

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - lease: How long a claim holds without renewal (default 10 s).
        ///   - retry: How failed calls are retried (default: the defaults of ``PostgresRetry``).
        ///   - retention: How long claims are kept, from their planned date (default 30 days).
        public init(
            lease: Duration = .seconds(10), retry: PostgresRetry = PostgresRetry(),
            retention: Duration = .seconds(30 * 86_400)
        ) {
            self.lease = lease
            self.retry = retry
            self.retention = retention
        }
    }

    let client: PostgresClient
    /// This replica's name, recorded with its claims and its runs' history.
    public let replica: String
    let configuration: Configuration
    private let abandoned = Mutex(AbandonedDates())
    private let cleaning = Mutex(Cleaning())

    /// Creates a coordinator on `client`, whose `run()` must be going while the scheduler runs. Call
    /// ``PostgresSchema/migrate(on:logger:)`` first.
    ///
    /// - Parameters:
    ///   - client: The database's client.
    ///   - replica: This replica's name, recorded with its claims (for people reading the table).
    ///   - configuration: The lease and the retries.
    /// - Throws: `JobError` `invalidConfiguration` naming a lease that is not more than zero (a
    ///   lease under a millisecond too), a retention under an hour, or a bad retry value.
    public init(client: PostgresClient, replica: String, configuration: Configuration = Configuration())
        throws(JobError)
    {
        guard configuration.lease >= .milliseconds(1) else {
            throw JobError(
                .invalidConfiguration, message: "the lease must be at least 1 ms, not \(configuration.lease)")
        }
        guard configuration.retention >= .seconds(3600) else {
            throw JobError(
                .invalidConfiguration,
                message: "the claims' retention must be at least 1 hour, not \(configuration.retention)")
        }
        try configuration.retry.validate()
        self.client = client
        self.replica = replica
        self.configuration = configuration
    }

    /// One attempt with the configured attempt timeout: for the calls the scheduler makes again before each date
    /// (the read of abandoned dates, their settling), where retries would only hold the date up.
    private var oneTry: PostgresRetry {
        PostgresRetry(attempts: 1, attemptTimeout: configuration.retry.attemptTimeout)
    }

    /// The lease in microseconds, the database's unit.
    var leaseMicroseconds: Int64 { Self.microseconds(configuration.lease) }

    /// The retention in microseconds.
    var retentionMicroseconds: Int64 { Self.microseconds(configuration.retention) }

    /// `duration` in whole microseconds, saturated (a validated lease or retention is far inside `Int64`).
    private static func microseconds(_ duration: Duration) -> Int64 {
        duration.microseconds(rounded: .down)
    }

    /// Claims the date, or returns `nil` when another replica holds or held it, or the date is older than
    /// ``Configuration/retention`` on the server's clock. Starts the removal of old finished claims when it is due
    /// (in the background).
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - plannedDate: The date.
    ///   - logger: Where errors and retries are logged.
    /// - Returns: The claim, renewed until it is released.
    /// - Throws: `JobError` `coordinatorUnavailable` when the database did not decide after the retries.
    public func claim(job: String, plannedDate: Date, logger: Logger) async throws(JobError) -> (any JobClaim)? {
        startCleaningIfDue(logger: logger)
        let (lease, retention) = (leaseMicroseconds, retentionMicroseconds)
        let token: Int64?
        do {
            token = try await configuration.retry.run("claiming a date", logger: logger, metadata: ["job": "\(job)"]) {
                [client, replica] in
                // A date older than the retention is refused here, so that its removed row cannot let it run again.
                let rows = try await client.query(
                    """
                    INSERT INTO tempo_claims (job, planned_at, token, replica, lease_until) SELECT \(job), \
                    \(plannedDate), nextval('tempo_claim_tokens'), \(replica), \
                    now() + \(lease) * interval '1 microsecond' \
                    WHERE \(plannedDate) >= now() - \(retention) * interval '1 microsecond' \
                    ON CONFLICT (job, planned_at) DO UPDATE SET \
                    token = excluded.token, replica = excluded.replica, lease_until = excluded.lease_until \
                    WHERE tempo_claims.finished_at IS NULL AND tempo_claims.lease_until < now() RETURNING token
                    """, logger: logger)
                var token: Int64?
                for try await value in rows.decode(Int64.self) { token = value }
                return token
            }
        } catch {
            logger.error(
                "postgres: cannot claim the date; not run here (left to the catch-up policy)",
                metadata: ["job": "\(job)", "job.date": "\(plannedDate.timeIntervalSince1970)"])
            throw JobError(
                .coordinatorUnavailable, job: job,
                message: "cannot claim job \"\(job)\" at \(plannedDate): \(String(reflecting: error))")
        }
        guard let token else { return nil }
        return PostgresJobClaim(coordinator: self, job: job, plannedDate: plannedDate, token: token, logger: logger)
    }

    /// The dates of `job` before `date` whose claims were never released and whose leases ran out, within the
    /// retention (older ones can no longer be claimed), oldest first, as the table read last says (read again when
    /// that is older than a third of the lease; at most the 1,000 latest such dates of all jobs). A date run again since the last read may still be listed: claiming it then
    /// fails. On a database error (logged at warning level, one try) it returns the dates read before.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - date: The date about to run.
    ///   - logger: Where errors are logged.
    /// - Returns: The abandoned dates, oldest first.
    public func abandonedDates(job: String, before date: Date, logger: Logger) async -> [Date] {
        let now = ContinuousClock.now
        let refresh = abandoned.withLock { cache in
            guard !cache.reading, cache.readAt.map({ $0.duration(to: now) >= configuration.lease / 3 }) ?? true
            else { return false }
            cache.reading = true
            return true
        }
        if refresh {
            var dates: [String: [Date]]?
            do {
                dates = try await oneTry.run("reading abandoned dates", logger: logger) { [client] in
                    let rows = try await client.query(Self.abandonedDatesQuery(retention: self.retentionMicroseconds))
                    var dates: [String: [Date]] = [:]
                    for try await (job, plannedAt) in rows.decode((String, Date).self) {
                        dates[job, default: []].insert(plannedAt, at: 0)
                    }
                    return dates
                }
            } catch {
                // Logged by the retry; the dates read before stand.
            }
            abandoned.withLock { cache in
                cache.reading = false
                cache.readAt = now
                if let dates { cache.dates = dates }
            }
        }
        return abandoned.withLock { $0.dates[job] ?? [] }.filter { $0 < date }
    }

    /// Marks `dates` of `job` finished where they are still abandoned (unfinished, their lease run out), with
    /// `succeeded` left empty (they did not run), in one statement, one try (as the read of abandoned dates: the
    /// scheduler calls again before the job's next date, so retries here would only hold that date up while the
    /// database is down); a date claimed again meanwhile keeps its claim. Finished, they are removed after the
    /// retention like any other. On a database error (logged at warning level) nothing changes: the dates are listed
    /// again by the next read.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - dates: Abandoned dates of the job.
    ///   - logger: Where errors are logged.
    public func settleAbandoned(job: String, dates: [Date], logger: Logger) async {
        guard !dates.isEmpty else { return }
        do {
            try await oneTry.run("settling abandoned dates", logger: logger, metadata: ["job": "\(job)"]) {
                [client] in
                _ = try await client.query(
                    """
                    UPDATE tempo_claims SET finished_at = now() WHERE job = \(job) AND planned_at = ANY(\(dates)) \
                    AND finished_at IS NULL AND lease_until < now()
                    """, logger: logger)
            }
        } catch {
            return
        }
        let settled = Set(dates)
        abandoned.withLock { cache in cache.dates[job]?.removeAll { settled.contains($0) } }
    }
}

extension PostgresJobCoordinator {
    /// The read of abandoned dates (the index `tempo_claims_unfinished` serves it).
    package static func abandonedDatesQuery(retention: Int64) -> PostgresQuery {
        """
        SELECT job, planned_at FROM tempo_claims WHERE finished_at IS NULL AND lease_until < now() \
        AND planned_at >= now() - \(retention) * interval '1 microsecond' ORDER BY planned_at DESC LIMIT 1000
        """
    }

    /// Starts a background task that removes old finished claims, unless one runs or one started less than
    /// ``Configuration/retentionInterval`` ago. Returns at once.
    private func startCleaningIfDue(logger: Logger) {
        let now = ContinuousClock.now
        let due = cleaning.withLock { state in
            guard !state.running,
                state.startedAt.map({ $0.duration(to: now) >= configuration.retentionInterval }) ?? true
            else { return false }
            state.startedAt = now
            state.running = true
            return true
        }
        guard due else { return }
        // Unstructured: the claim that starts it must not wait for it. It ends by itself (a statement or its
        // timeout per batch) and keeps the coordinator until then.
        Task(priority: .background) {
            await removeExpiredClaims(logger: logger)
            cleaning.withLock { $0.running = false }
        }
    }

    /// Removes the claims whose date is older than ``Configuration/retention`` plus an hour, 1,000 rows per
    /// statement, until none is left, the task is cancelled or a statement fails (logged at warning level; the next
    /// removal tries again): the finished ones first, then the unfinished ones whose lease ran out (abandoned: a date
    /// that old is neither claimed nor listed by ``abandonedDates(job:before:logger:)`` any more, so nothing would
    /// ever finish them). An unfinished claim whose lease still holds stays: its run goes on.
    ///
    /// - Parameter logger: Where errors and the count removed are logged.
    /// - Returns: The number of rows removed.
    @discardableResult
    package func removeExpiredClaims(logger: Logger) async -> Int {
        let bound = retentionMicroseconds + 3_600_000_000
        var removed = 0
        // Each served by its partial index (`tempo_claims_finished`, `tempo_claims_unfinished`).
        let statements: [PostgresQuery] = [
            """
            DELETE FROM tempo_claims WHERE (job, planned_at) IN (SELECT job, planned_at FROM tempo_claims \
            WHERE finished_at IS NOT NULL AND planned_at < now() - \(bound) * interval '1 microsecond' \
            ORDER BY planned_at LIMIT 1000) RETURNING 1::bigint
            """,
            """
            DELETE FROM tempo_claims WHERE (job, planned_at) IN (SELECT job, planned_at FROM tempo_claims \
            WHERE finished_at IS NULL AND planned_at < now() - \(bound) * interval '1 microsecond' \
            AND lease_until < now() ORDER BY planned_at DESC LIMIT 1000) RETURNING 1::bigint
            """,
        ]
        var statement = 0
        while !Task.isCancelled, statement < statements.count {
            do {
                let limit = configuration.retry.attemptTimeout
                let query = statements[statement]
                let count = try await withTimeout(limit, "removing old claims") { [client] in
                    var count = 0
                    for try await _ in try await client.query(query, logger: logger).decode(Int64.self) {
                        count += 1
                    }
                    return count
                }
                removed += count
                if count < 1000 { statement += 1 }
            } catch {
                // One try, at warning level: it comes back with the next claim due (a shutdown ends it too).
                logger.warning(
                    "postgres: cannot remove old claims; tried again later",
                    metadata: ["error": "\(String(reflecting: error))"])
                break
            }
        }
        if removed > 0 { logger.info("postgres: removed old claims", metadata: ["count": "\(removed)"]) }
        return removed
    }
}

/// Whether the retention task runs, and when the last one started.
private struct Cleaning {
    var startedAt: ContinuousClock.Instant?
    var running = false
}

/// The abandoned dates of every job as last read, and when.
private struct AbandonedDates {
    var readAt: ContinuousClock.Instant?
    var reading = false
    var dates: [String: [Date]] = [:]
}
#endif
