#if Postgres
public import Foundation
import Logging
package import PostgresNIO
public import TempoJobs

extension PostgresJobStore: JobControlStore {
    /// Every job a scheduler published in `tempo_jobs`, sorted by name: one query.
    ///
    /// - Returns: The overviews.
    /// - Throws: `JobError` `unreadable` after the retries.
    public func jobOverviews() async throws -> [JobOverview] {
        try await read("reading the jobs", job: nil) { [client, logger] in
            let rows = try await client.query(Self.overviewQuery(job: nil), logger: logger)
            var overviews: [JobOverview] = []
            for try await row in rows { overviews.append(try Self.overview(row.makeRandomAccess())) }
            return overviews
        }
    }

    /// One job's overview, its last runs from `tempo_runs` (newest first) and its unfinished claims in
    /// `tempo_claims` (at most the 20 latest), or `nil` when no scheduler published it.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - historyLimit: The most runs to return.
    /// - Returns: The detail.
    /// - Throws: `JobError` `unreadable` after the retries.
    public func jobDetail(named job: String, historyLimit: Int) async throws -> JobDetail? {
        let limit = max(0, historyLimit)
        return try await read("reading a job", job: job) { [client, logger] in
            var overview: JobOverview?
            for try await row in try await client.query(Self.overviewQuery(job: job), logger: logger) {
                overview = try Self.overview(row.makeRandomAccess())
            }
            guard let overview else { return nil }
            // Newest end first, as `JobDetail.history` says: replicas record their runs in the order their writes
            // arrive, which is not always the order the runs ended in.
            var history: [JobRunRecord] = []
            for try await row in try await client.query(
                """
                SELECT job, planned_at, trigger, replica, started_at, ended_at, attempts::bigint, outcome, error, \
                token FROM tempo_runs WHERE job = \(job) ORDER BY ended_at DESC, id DESC LIMIT \(Int64(limit))
                """, logger: logger)
            {
                history.append(try Self.run(row.makeRandomAccess(), prefix: ""))
            }
            var claims: [JobDetail.Claim] = []
            for try await (plannedAt, replica, token, leaseUntil) in try await client.query(
                """
                SELECT planned_at, replica, token, lease_until FROM tempo_claims WHERE job = \(job) \
                AND finished_at IS NULL ORDER BY planned_at DESC LIMIT 20
                """, logger: logger
            ).decode((Date, String, Int64, Date).self) {
                claims.insert(
                    JobDetail.Claim(
                        plannedDate: plannedAt, replica: replica, fencingToken: token, leaseUntil: leaseUntil),
                    at: 0)
            }
            return JobDetail(overview: overview, history: history, claims: claims)
        }
    }

    /// Pauses `job` on every replica (each honours it at its next read of the control).
    ///
    /// - Parameter job: The job's name.
    /// - Throws: `JobError` `unknownJob` when `tempo_jobs` has no such job; `unwritable` after the retries.
    public func pause(job: String) async throws {
        try await set(.paused, of: job)
    }

    /// Resumes `job` on every replica.
    ///
    /// - Parameter job: The job's name.
    /// - Throws: As ``pause(job:)``.
    public func resume(job: String) async throws {
        try await set(.active, of: job)
    }

    /// Adds a run-now request to `tempo_run_requests`, dated by the server's `clock_timestamp()` (after the job's
    /// latest request).
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The request's date.
    /// - Throws: As ``pause(job:)``.
    public func requestRun(of job: String) async throws -> Date {
        let date = try await write("asking for a run", job: job) { [client, logger] in
            var date: Date?
            for try await value in try await client.query(
                """
                INSERT INTO tempo_run_requests (job, requested_at) SELECT job, greatest(clock_timestamp(), \
                (SELECT max(requested_at) + interval '1 microsecond' FROM tempo_run_requests WHERE job = \(job))) \
                FROM tempo_jobs WHERE job = \(job) RETURNING requested_at
                """, logger: logger
            ).decode(Date.self) {
                date = value
            }
            return date
        }
        guard let date else { throw unknown(job) }
        return date
    }

    /// Writes what a scheduler publishes about a job to `tempo_jobs` (keeping the job's state).
    ///
    /// - Parameter description: The job's description.
    /// - Throws: `JobError` `unwritable` after the retries.
    public func publish(_ description: JobDescription) async throws {
        _ = try await write("publishing a job", job: description.name) { [client, logger] in
            try await client.query(
                """
                INSERT INTO tempo_jobs (job, schedule, next_dates, replica, published_at) VALUES (\(description.name), \
                \(description.schedule), \(description.nextDates), \(description.replica), \(description.publishedAt)) \
                ON CONFLICT (job) DO UPDATE SET schedule = excluded.schedule, next_dates = excluded.next_dates, \
                replica = excluded.replica, published_at = excluded.published_at
                """, logger: logger)
            return true
        }
    }

    /// Reads the control of every job in one query (`tempo_jobs` joined with `tempo_run_requests`) at once, then
    /// every ``controlInterval``, and yields it when it changed; a failed read is logged at warning level and tried
    /// again at the next interval. The polling task ends when the stream is terminated.
    ///
    /// - Returns: A stream of its own.
    public func controlUpdates() -> AsyncStream<[String: JobControl]> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: [String: JobControl].self, bufferingPolicy: .bufferingNewest(1))
        let poll = Task { [self] in
            var last: [String: JobControl]?
            while !Task.isCancelled {
                do {
                    let controls = try await withTimeout(retry.attemptTimeout, "reading the jobs' control") {
                        try await self.readControls()
                    }
                    if controls != last {
                        continuation.yield(controls)
                        last = controls
                    }
                } catch {
                    logger.warning(
                        "postgres: cannot read the jobs' control; tried again later",
                        metadata: ["error": "\(String(reflecting: error))"])
                }
                do {
                    try await Task.sleep(for: controlInterval)
                } catch {
                    break
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in poll.cancel() }
        return stream
    }

    /// Finishes the run's claim, writes the cursor (if any), removes a served run-now request and adds the run to
    /// `tempo_runs` (removing the job's runs past ``historyLimit``) in one statement, for a `PostgresJobClaim` of
    /// this store's client; another claim is released first (then one statement). The claim's row is finished on
    /// the conditions of `PostgresJobClaim.release(succeeded:)`; the history row is added in any case (a stale
    /// run ran too).
    ///
    /// - Parameters:
    ///   - run: The finished run.
    ///   - cursor: The cursor to write, or `nil`.
    ///   - claim: The run's claim.
    /// - Throws: `JobError` `unwritable` after the retries (the claim is then left unfinished, as after a failed
    ///   release).
    public func record(_ run: JobRunRecord, cursor: JobCursor?, releasing claim: any JobClaim) async throws {
        var finishes: PostgresJobClaim?
        if let claim = claim as? PostgresJobClaim, claim.client === client {
            if claim.endRenewal() { finishes = claim }
        } else {
            await claim.release(succeeded: run.outcome == .succeeded)
        }
        let query = Self.recordQuery(run, cursor: cursor, finishing: finishes, historyLimit: historyLimit)
        guard let query else { return }
        do {
            try await retry.run("finishing a run", logger: logger, metadata: ["job": "\(run.job)"]) {
                [client, logger] in
                _ = try await client.query(query, logger: logger)
            }
        } catch {
            throw JobError.store(
                .unwritable, job: run.job, at: "tempo_runs, tempo_cursors and tempo_claims",
                "cannot finish the run: \(String(reflecting: error))")
        }
    }
}

extension PostgresJobStore {
    /// The statement that ends a run, or `nil` when there is nothing to write. Only the parts needed are in it, so
    /// that each bind is used.
    package static func recordQuery(
        _ run: JobRunRecord, cursor: JobCursor?, finishing claim: PostgresJobClaim?, historyLimit: Int
    ) -> PostgresQuery? {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        func bindOptional(_ value: String?) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        var parts: [String] = []
        let job = bind(run.job)
        if let claim {
            parts.append(
                """
                finished AS (UPDATE tempo_claims SET finished_at = now(), succeeded = \(bind(run.outcome == .succeeded)) \
                WHERE job = \(job) AND planned_at = \(bind(claim.plannedDate)) AND token = \(bind(claim.fencingToken)) \
                AND lease_until > now())
                """)
        }
        if let cursor {
            parts.append(
                """
                cursor AS (INSERT INTO tempo_cursors (job, last_date, version) VALUES (\(job), \(bind(cursor.lastDate)), \
                \(bind(cursor.version))) ON CONFLICT (job) DO UPDATE SET last_date = excluded.last_date, \
                version = excluded.version WHERE tempo_cursors.last_date < excluded.last_date)
                """)
        }
        if run.trigger == .runNow {
            parts.append(
                """
                served AS (DELETE FROM tempo_run_requests WHERE job = \(job) AND requested_at <= \(bind(run.plannedDate)))
                """)
        }
        var main: String
        if historyLimit > 0 {
            // The snapshot of the statement does not see the new row: keep the latest `historyLimit - 1` before it.
            parts.append(
                """
                trimmed AS (DELETE FROM tempo_runs WHERE job = \(job) AND id <= (SELECT id FROM tempo_runs \
                WHERE job = \(job) ORDER BY id DESC OFFSET \(bind(Int64(historyLimit - 1))) LIMIT 1))
                """)
            main = """
                INSERT INTO tempo_runs (job, planned_at, trigger, replica, started_at, ended_at, attempts, outcome, \
                error, token) VALUES (\(job), \(bind(run.plannedDate)), \(bind(run.trigger.description)), \
                \(bind(run.replica)), \(bind(run.started)), \(bind(run.ended)), \(bind(Int32(clamping: run.attempts))), \
                \(bind(run.outcome.description)), \(bindOptional(run.error)), \(bind(run.fencingToken)))
                """
        } else {
            guard let last = parts.popLast() else { return nil }
            // The last part's statement, without its name, is the main statement.
            let start = last.index(last.firstIndex(of: "(")!, offsetBy: 1)
            main = String(last[start..<last.index(before: last.endIndex)])
        }
        let with = parts.isEmpty ? "" : "WITH " + parts.joined(separator: ", ") + " "
        return PostgresQuery(unsafeSQL: with + main, binds: binds)
    }

    /// The overviews' query: each job with its pending requests and its latest run (`job`: one job, or all).
    static func overviewQuery(job: String?) -> PostgresQuery {
        let columns = """
            SELECT j.job, j.schedule, array(SELECT d FROM unnest(j.next_dates) d WHERE d > now() ORDER BY d LIMIT \
            \(JobOverview.listedDates)) AS next_dates, j.replica, j.published_at, j.state, j.state_changed_at, \
            (SELECT count(*) FROM tempo_run_requests r WHERE r.job = j.job) AS pending, \
            l.job AS l_job, l.planned_at AS l_planned_at, l.trigger AS l_trigger, l.replica AS l_replica, \
            l.started_at AS l_started_at, l.ended_at AS l_ended_at, l.attempts::bigint AS l_attempts, \
            l.outcome AS l_outcome, l.error AS l_error, l.token AS l_token FROM tempo_jobs j LEFT JOIN LATERAL \
            (SELECT * FROM tempo_runs r WHERE r.job = j.job ORDER BY r.id DESC LIMIT 1) l ON true
            """
        guard let job else { return PostgresQuery(unsafeSQL: columns + " ORDER BY j.job") }
        var binds = PostgresBindings()
        binds.append(job)
        return PostgresQuery(unsafeSQL: columns + " WHERE j.job = $1", binds: binds)
    }

    static func overview(_ row: PostgresRandomAccessRow) throws -> JobOverview {
        let state = try row["state"].decode(String.self)
        let last = try row["l_job"].decode(String?.self) == nil ? nil : try run(row, prefix: "l_")
        return JobOverview(
            name: try row["job"].decode(String.self), schedule: try row["schedule"].decode(String.self),
            nextDates: try row["next_dates"].decode([Date].self),
            state: state == "paused" ? .paused : .active,
            stateChangedAt: try row["state_changed_at"].decode(Date?.self),
            pendingRuns: Int(try row["pending"].decode(Int64.self)), lastRun: last,
            publishedBy: try row["replica"].decode(String.self), publishedAt: try row["published_at"].decode(Date.self))
    }

    static func run(_ row: PostgresRandomAccessRow, prefix: String) throws -> JobRunRecord {
        let trigger = try row[prefix + "trigger"].decode(String.self)
        let outcome = try row[prefix + "outcome"].decode(String.self)
        let outcomes: [String: JobRunOutcome] = [
            "succeeded": .succeeded, "failed": .failed, "timedOut": .timedOut, "cancelled": .cancelled,
        ]
        return JobRunRecord(
            job: try row[prefix + "job"].decode(String.self),
            plannedDate: try row[prefix + "planned_at"].decode(Date.self),
            trigger: trigger == "runNow" ? .runNow : .schedule,
            replica: try row[prefix + "replica"].decode(String.self),
            started: try row[prefix + "started_at"].decode(Date.self),
            ended: try row[prefix + "ended_at"].decode(Date.self),
            attempts: Int(try row[prefix + "attempts"].decode(Int64.self)), outcome: outcomes[outcome] ?? .failed,
            error: try row[prefix + "error"].decode(String?.self),
            fencingToken: try row[prefix + "token"].decode(Int64.self))
    }

    /// The control of every job, in one query.
    func readControls() async throws -> [String: JobControl] {
        var controls: [String: JobControl] = [:]
        for try await (job, state, changedAt, requested) in try await client.query(
            """
            SELECT j.job, j.state, j.state_changed_at, r.requested_at FROM tempo_jobs j \
            LEFT JOIN tempo_run_requests r ON r.job = j.job ORDER BY j.job, r.requested_at
            """, logger: logger
        ).decode((String, String, Date?, Date?).self) {
            var control =
                controls[job] ?? JobControl(state: state == "paused" ? .paused : .active, changedAt: changedAt)
            if let requested { control.runRequests.append(requested) }
            controls[job] = control
        }
        return controls
    }

    private func set(_ state: JobState, of job: String) async throws {
        let found = try await write(state == .paused ? "pausing a job" : "resuming a job", job: job) {
            [client, logger] in
            var found = false
            for try await _ in try await client.query(
                """
                UPDATE tempo_jobs SET state_changed_at = CASE WHEN state = \(state.description) THEN state_changed_at \
                ELSE clock_timestamp() END, state = \(state.description) WHERE job = \(job) RETURNING 1::bigint
                """, logger: logger
            ).decode(Int64.self) {
                found = true
            }
            return found
        }
        guard found else { throw unknown(job) }
    }

    private func unknown(_ job: String) -> JobError {
        JobError(.unknownJob, job: job, message: "tempo_jobs: no scheduler published a job named \"\(job)\"")
    }

    private func read<T: Sendable>(
        _ what: String, job: String?, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        do {
            return try await retry.run(what, logger: logger, metadata: ["job": "\(job ?? "")"], body)
        } catch {
            throw JobError(
                .unreadable, job: job, message: "tempo_jobs: \(what) failed: \(String(reflecting: error))")
        }
    }

    private func write<T: Sendable>(
        _ what: String, job: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        do {
            return try await retry.run(what, logger: logger, metadata: ["job": "\(job)"], body)
        } catch {
            throw JobError.store(
                .unwritable, job: job, at: "tempo_jobs", "\(what) failed: \(String(reflecting: error))")
        }
    }
}
#endif
