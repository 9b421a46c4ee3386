#if Postgres
public import Foundation
public import Logging
public import PostgresNIO
import Synchronization
public import TempoJobs

/// A date of a job claimed in `tempo_claims`: its fencing token, a lease renewed every third of its length while
/// the run goes on, and ``isHeld()`` for the body to learn whether it still holds the date.
///
/// Once a renewal finds the lease expired or taken over (the row's token is another), or renewals failed (an error,
/// or no answer within a third of the lease) for the lease's length since the last one that succeeded (the database could not be reached, so the lease has surely
/// run out on the server), the claim is lost for good: renewals stop, a warning is logged once, and ``isHeld()``
/// returns `false` from then on without asking the database. A claim released, or no longer referenced, stops
/// renewing. A body that writes results should write them in ``withFencedTransaction(_:logger:isolation:_:)``,
/// which refuses them once the claim no longer holds (see the article "Running on several replicas").
///
/// Thread-safety: a final class whose mutable state is atomic; every method may be called from any task.
public final class PostgresJobClaim: JobClaim {
    /// The fencing token, from the sequence `tempo_claim_tokens`: unique, and larger for later claims.
    public let fencingToken: Int64
    /// The job's name.
    public let job: String
    /// The planned date claimed.
    public let plannedDate: Date
    private let lease: Lease
    private let renewal: Task<Void, Never>

    init(coordinator: PostgresJobCoordinator, job: String, plannedDate: Date, token: Int64, logger: Logger) {
        self.fencingToken = token
        self.job = job
        self.plannedDate = plannedDate
        let lease = Lease(coordinator: coordinator, job: job, plannedDate: plannedDate, token: token, logger: logger)
        self.lease = lease
        let length = coordinator.configuration.lease
        renewal = Task {
            // When the lease surely ended on the server: its last renewal's answer plus its length.
            let clock = ContinuousClock()
            var heldUntil = clock.now.advanced(by: length)
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: length / 3)
                } catch {
                    return
                }
                switch await lease.renew() {
                case .held:
                    heldUntil = clock.now.advanced(by: length)
                case .lost:
                    return
                case .unknown:
                    guard clock.now < heldUntil else {
                        lease.markLost("the database could not be reached for the lease's length")
                        return
                    }
                }
            }
        }
    }

    deinit {
        renewal.cancel()
    }

    /// Whether this replica still holds the date, as the database says now (`false` once the lease expired or
    /// another replica took the date over, and when the database cannot be reached).
    ///
    /// - Returns: `true` while the claim holds.
    public func isHeld() async -> Bool {
        await lease.check()
    }

    /// Stops the renewals; returns whether the claim may still be finished (it is not known to be lost).
    func endRenewal() -> Bool {
        renewal.cancel()
        return !lease.lost.load(ordering: .acquiring)
    }

    /// The client of the claim's coordinator.
    var client: PostgresClient { lease.coordinator.client }

    /// A transaction's isolation level, for ``withFencedTransaction(_:logger:isolation:_:)``.
    ///
    /// A closed enum: PostgreSQL runs these three levels (its `READ UNCOMMITTED` is `READ COMMITTED`), and a later
    /// version adds none, so a `switch` over it need not have a `default:`.
    public enum IsolationLevel: Sendable, Hashable {
        /// `READ COMMITTED`, PostgreSQL's default: each statement sees what was committed before it began.
        case readCommitted
        /// `REPEATABLE READ`: every statement sees the snapshot of the transaction's first one.
        case repeatableRead
        /// `SERIALIZABLE`: as `REPEATABLE READ`, and the server refuses what no serial order would give.
        case serializable

        var sql: String {
            switch self {
            case .readCommitted: "READ COMMITTED"
            case .repeatableRead: "REPEATABLE READ"
            case .serializable: "SERIALIZABLE"
            }
        }
    }

    /// Runs `body`'s statements in one transaction on a connection of the coordinator's client, fenced by this
    /// claim: the transaction's first statement locks the claim's row (`FOR SHARE`) if it still carries this
    /// token, is unfinished and its lease runs past the server's `clock_timestamp()` (the time of the check, not
    /// the transaction's start, which `now()` would be); when it does not, nothing else runs and the call throws.
    /// The lock is held until the transaction ends, so no other replica can take the date over (its claim waits)
    /// while a fenced write is being made: a write that commits was made while this claim held the date.
    ///
    /// The transaction commits when `body` returns and rolls back when it throws. Keep it short: this claim's own
    /// renewals and other replicas' claims of the date wait for it (a renewal waits at most a third of the lease,
    /// and the claim is given up only after renewals failed for the lease's length). Under `repeatableRead` or
    /// `serializable`, a change of the row since the transaction's snapshot (a takeover, or this claim's renewal
    /// committing at the same moment) fails the check with the server's serialization error (SQLSTATE 40001): run
    /// the whole call again, and it is refused if the date was taken over. Any thread or task; `body` must not
    /// keep the connection.
    ///
    /// ```swift
    /// try await claim.withFencedTransaction { connection in
    ///     try await connection.query("INSERT INTO reports (day, total) VALUES (\(day), \(total))", logger: logger)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - level: The transaction's isolation level (default `readCommitted`).
    ///   - logger: The logger of the transaction's statements (default: the claim's, the scheduler's logger).
    ///   - isolation: The caller's actor, on which `body` runs.
    ///   - body: The statements to fence, run on the transaction's connection.
    /// - Returns: What `body` returns, once the transaction committed.
    /// - Throws: `JobError` `claimLost` naming the job, date and token when the claim no longer holds (its lease
    ///   ran out, another replica took the date over, or it was released; also without asking the database once
    ///   the claim is known to be lost); what `body` throws (after the rollback); the database's errors otherwise.
    @discardableResult
    public func withFencedTransaction<Result>(
        _ level: IsolationLevel = .readCommitted, logger: Logger? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        let logger = logger ?? lease.logger
        guard !lease.lost.load(ordering: .acquiring) else { throw claimLost("the claim was lost before") }
        return try await lease.coordinator.client.withConnection(isolation: isolation) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(level.sql)"), logger: logger)
            let value: Result
            do {
                let rows = try await connection.query(
                    """
                    SELECT 1::bigint FROM tempo_claims WHERE job = \(job) AND planned_at = \(plannedDate) \
                    AND token = \(fencingToken) AND finished_at IS NULL AND lease_until > clock_timestamp() FOR SHARE
                    """, logger: logger)
                var held = false
                for try await _ in rows.decode(Int64.self) { held = true }
                guard held else {
                    lease.markLost("the lease expired, another replica took the date over, or the run was released")
                    throw claimLost("its lease ran out, another replica took the date over, or it was released")
                }
                value = try await body(connection)
            } catch {
                do {
                    try await connection.query("ROLLBACK", logger: logger)
                } catch {
                    // Never back to the pool in a transaction: a connection that cannot roll back is closed.
                    try? await connection.close()
                }
                throw error
            }
            try await connection.query("COMMIT", logger: logger)
            return value
        }
    }

    private func claimLost(_ reason: String) -> JobError {
        JobError(
            .claimLost, job: job,
            message: """
                job "\(job)" at \(plannedDate) (token \(fencingToken)): the claim no longer holds (\(reason)); \
                the fenced transaction was not run
                """)
    }

    /// Stops renewing and marks the date finished (never claimed again), unless the claim was lost or its lease ran
    /// out: then the date stays unfinished, and a catch-up run of another replica may claim it again.
    ///
    /// - Parameter succeeded: Whether the run succeeded, recorded in the row.
    public func release(succeeded: Bool) async {
        renewal.cancel()
        await lease.finish(succeeded: succeeded)
    }
}

/// The claim's row and whether it was lost; shared by the claim and its renewal task.
private final class Lease: Sendable {
    let coordinator: PostgresJobCoordinator
    let job: String
    let plannedDate: Date
    let token: Int64
    let logger: Logger
    let lost = Atomic(false)

    init(coordinator: PostgresJobCoordinator, job: String, plannedDate: Date, token: Int64, logger: Logger) {
        self.coordinator = coordinator
        self.job = job
        self.plannedDate = plannedDate
        self.token = token
        var logger = logger
        logger[metadataKey: "job"] = "\(job)"
        logger[metadataKey: "job.date"] = "\(plannedDate.timeIntervalSince1970)"
        logger[metadataKey: "claim.token"] = "\(token)"
        self.logger = logger
    }

    /// What a renewal learned.
    enum Renewal {
        case held, lost, unknown
    }

    /// Extends the lease; returns `.lost` (and marks the claim lost) when the row's lease expired or its token is
    /// another's, and `.unknown` on a database error or no answer within a third of the lease (the next renewal
    /// decides, or the lease's length runs out).
    func renew() async -> Renewal {
        let lease = coordinator.leaseMicroseconds
        do {
            let held = try await withTimeout(coordinator.configuration.lease / 3, "renewing a claim's lease") {
                try await self.rowCount(
                    """
                    UPDATE tempo_claims SET lease_until = now() + \(lease) * interval '1 microsecond' \
                    WHERE job = \(self.job) AND planned_at = \(self.plannedDate) AND token = \(self.token) \
                    AND lease_until > now() AND finished_at IS NULL RETURNING 1::bigint
                    """)
            }
            guard held else {
                markLost("the lease expired or another replica took the date over")
                return .lost
            }
            return .held
        } catch {
            logger.warning(
                "postgres: cannot renew the claim's lease", metadata: ["error": "\(String(reflecting: error))"])
            return .unknown
        }
    }

    /// Whether the row still carries this token and an unexpired lease.
    func check() async -> Bool {
        guard !lost.load(ordering: .acquiring) else { return false }
        do {
            let held = try await withTimeout(coordinator.configuration.retry.attemptTimeout, "checking a claim") {
                try await self.rowCount(
                    """
                    SELECT 1::bigint FROM tempo_claims WHERE job = \(self.job) AND planned_at = \(self.plannedDate) \
                    AND token = \(self.token) AND lease_until > now()
                    """)
            }
            if !held { markLost("the lease expired or another replica took the date over") }
            return held
        } catch {
            logger.warning(
                "postgres: cannot check the claim; treated as lost", metadata: ["error": "\(String(reflecting: error))"]
            )
            return false
        }
    }

    /// Marks the row finished, if it is still this claim's and its lease holds: a date whose lease ran out stays
    /// unfinished, so that a catch-up run may claim it again (its stale run's writes were fenced off).
    func finish(succeeded: Bool) async {
        guard !lost.load(ordering: .acquiring) else { return }
        do {
            try await coordinator.configuration.retry.run("finishing a claim", logger: logger) {
                _ = try await self.coordinator.client.query(
                    """
                    UPDATE tempo_claims SET finished_at = now(), succeeded = \(succeeded) \
                    WHERE job = \(self.job) AND planned_at = \(self.plannedDate) AND token = \(self.token) \
                    AND lease_until > now()
                    """, logger: self.logger)
            }
        } catch {
            // Logged by the retry; the lease then expires and a catch-up run may claim the date again.
        }
    }

    /// Marks the claim lost for good, logging why once.
    func markLost(_ reason: String) {
        if !lost.exchange(true, ordering: .acquiringAndReleasing) {
            logger.warning("postgres: the claim was lost; the run is stale", metadata: ["reason": "\(reason)"])
        }
    }

    private func rowCount(_ query: PostgresQuery) async throws -> Bool {
        let rows = try await coordinator.client.query(query, logger: logger)
        var count = 0
        for try await _ in rows.decode(Int64.self) { count += 1 }
        return count > 0
    }
}
#endif
