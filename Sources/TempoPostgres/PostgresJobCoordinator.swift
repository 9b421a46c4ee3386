#if Postgres
public import Foundation
public import Logging
public import PostgresNIO
import Synchronization
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
/// again (with a new token) and runs it. The table is read once per third of a lease per coordinator, for all
/// jobs at once, so the cost does not grow with the number of jobs.
///
/// Errors: each database call is retried per ``Configuration/retry``, each failure (an error, or no answer within
/// ``PostgresRetry/attemptTimeout``) logged at warning level; when a claim still fails, the date is refused here
/// (logged at error level): it is lost rather than risked twice, unless the catch-up policy runs it later as an
/// abandoned date.
///
/// Thread-safety: a final class whose mutable state (the abandoned dates read last) is in a `Mutex`; every method
/// may be called from any task.
public final class PostgresJobCoordinator: JobCoordinator {
    /// Settings of the claims.
    public struct Configuration: Sendable {
        /// How long a claim holds without renewal, on the database server's clock (default 10 s). Renewed every
        /// third of it while the run goes on. More than zero.
        public var lease: Duration
        /// How failed database calls are retried.
        public var retry: PostgresRetry

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - lease: How long a claim holds without renewal (default 10 s).
        ///   - retry: How failed calls are retried (default: the defaults of ``PostgresRetry``).
        public init(lease: Duration = .seconds(10), retry: PostgresRetry = PostgresRetry()) {
            self.lease = lease
            self.retry = retry
        }
    }

    let client: PostgresClient
    let replica: String
    let configuration: Configuration
    private let abandoned = Mutex(AbandonedDates())

    /// Creates a coordinator on `client`, whose `run()` must be going while the scheduler runs. Call
    /// ``PostgresSchema/migrate(on:logger:)`` first.
    ///
    /// - Parameters:
    ///   - client: The database's client.
    ///   - replica: This replica's name, recorded with its claims (for people reading the table).
    ///   - configuration: The lease and the retries.
    /// - Throws: `JobError` `invalidConfiguration` naming a lease that is not more than zero (a
    ///   lease under a millisecond too) or a bad retry value.
    public init(client: PostgresClient, replica: String, configuration: Configuration = Configuration())
        throws(JobError)
    {
        guard configuration.lease >= .milliseconds(1) else {
            throw JobError(
                .invalidConfiguration, message: "the lease must be at least 1 ms, not \(configuration.lease)")
        }
        try configuration.retry.validate()
        self.client = client
        self.replica = replica
        self.configuration = configuration
    }

    /// The lease in microseconds, the database's unit.
    var leaseMicroseconds: Int64 {
        let (seconds, attoseconds) = configuration.lease.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// Claims the date, or returns `nil` when another replica holds or held it, or the database cannot be reached
    /// after the retries.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - plannedDate: The date.
    ///   - logger: Where errors and retries are logged.
    /// - Returns: The claim, renewed until it is released.
    public func claim(job: String, plannedDate: Date, logger: Logger) async throws(JobError) -> (any JobClaim)? {
        let lease = leaseMicroseconds
        let token: Int64?
        do {
            token = try await configuration.retry.run("claiming a date", logger: logger, metadata: ["job": "\(job)"]) {
                [client, replica] in
                let rows = try await client.query(
                    """
                    INSERT INTO tempo_claims (job, planned_at, token, replica, lease_until) VALUES (\(job), \
                    \(plannedDate), nextval('tempo_claim_tokens'), \(replica), \
                    now() + \(lease) * interval '1 microsecond') ON CONFLICT (job, planned_at) DO UPDATE SET \
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

    /// The dates of `job` before `date` whose claims were never released and whose leases ran out, oldest first,
    /// as the table read last says (read again when that is older than a third of the lease; at most the 1,000
    /// latest such dates of all jobs). A date run again since the last read may still be listed: claiming it then
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
                let once = PostgresRetry(attempts: 1, attemptTimeout: configuration.retry.attemptTimeout)
                dates = try await once.run("reading abandoned dates", logger: logger) { [client] in
                    let rows = try await client.query(
                        """
                        SELECT job, planned_at FROM tempo_claims WHERE finished_at IS NULL AND lease_until < now() \
                        ORDER BY planned_at DESC LIMIT 1000
                        """, logger: logger)
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
}

/// The abandoned dates of every job as last read, and when.
private struct AbandonedDates {
    var readAt: ContinuousClock.Instant?
    var reading = false
    var dates: [String: [Date]] = [:]
}
#endif
