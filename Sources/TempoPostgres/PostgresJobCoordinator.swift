#if Postgres
public import Foundation
public import Logging
public import PostgresNIO
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
/// Errors: each database call is retried per ``Configuration/retry``, each failure logged at warning level; when a
/// claim still fails, the date is refused here (logged at error level): it is lost rather than risked twice.
///
/// Thread-safety: a final class with immutable state; every method may be called from any task.
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
        ///   - retry: How failed calls are retried (default ``PostgresRetry/init(attempts:firstWait:maximumWait:)``).
        public init(lease: Duration = .seconds(10), retry: PostgresRetry = PostgresRetry()) {
            self.lease = lease
            self.retry = retry
        }
    }

    let client: PostgresClient
    let replica: String
    let configuration: Configuration

    /// Creates a coordinator on `client`, whose `run()` must be going while the scheduler runs. Call
    /// ``PostgresSchema/migrate(on:logger:)`` first.
    ///
    /// - Parameters:
    ///   - client: The database's client.
    ///   - replica: This replica's name, recorded with its claims (for people reading the table).
    ///   - configuration: The lease and the retries.
    /// - Throws: ``PostgresJobsError/Code/invalidConfiguration`` naming a lease that is not more than zero (a
    ///   lease under a millisecond too) or a bad retry value.
    public init(client: PostgresClient, replica: String, configuration: Configuration = Configuration())
        throws(PostgresJobsError)
    {
        guard configuration.lease >= .milliseconds(1) else {
            throw PostgresJobsError(
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
    public func claim(job: String, plannedDate: Date, logger: Logger) async -> (any JobClaim)? {
        let lease = leaseMicroseconds
        let token: Int64?
        do {
            token = try await configuration.retry.run("claiming a date", logger: logger, metadata: ["job": "\(job)"]) {
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
                "postgres: cannot claim the date; not run here",
                metadata: ["job": "\(job)", "job.date": "\(plannedDate.timeIntervalSince1970)"])
            return nil
        }
        guard let token else { return nil }
        return PostgresJobClaim(coordinator: self, job: job, plannedDate: plannedDate, token: token, logger: logger)
    }
}
#endif
