import Foundation
import Logging
import Tempo

extension JobScheduler {
    /// Runs one date of a job if the coordinator grants it: its attempts under the failure policy, the cursor per
    /// the delivery mode, then the queued run or the end.
    func execute(_ request: RunRequest) async {
        let lateness = max(.zero, origin.duration(to: clock.now) - request.due)
        if let claim = await coordinator.claim(job: request.job.name, plannedDate: request.date, logger: logger) {
            await runClaimed(request, claim: claim, lateness: lateness)
        } else {
            update(request.job.name) { stats in
                stats.started -= 1
                stats.claimedElsewhere += 1
            }
            logger.debug(
                "job date claimed elsewhere; not run here",
                metadata: ["job": "\(request.job.name)", "job.date": "\(request.date.timeIntervalSince1970)"])
        }
        let (ended, executor) = state.withLock { ($0.runEnded(request), $0.executor) }
        if let next = ended.next { start(next, on: executor) }
        for waiter in ended.resume { waiter.resume() }
        ended.drained?.resume()
    }

    /// The attempts of a granted date, its cursor and the claim's release.
    private func runClaimed(_ request: RunRequest, claim: any JobClaim, lateness: Duration) async {
        let job = request.job
        if job.options.delivery == .atMostOnce { await saveCursor(of: job, date: request.date) }
        var attempt = 1
        var previousWait: Duration?
        var succeeded = false
        while true {
            let context = JobContext(
                name: job.name, plannedDate: request.date, lateness: lateness, attempt: attempt, logger: logger,
                claim: claim)
            guard let error = await attemptOnce(job, context: context) else {
                succeeded = true
                break
            }
            let timedOut = (error as? JobError)?.code == .timedOut
            update(job.name) { stats in
                stats.failedAttempts += 1
                if timedOut { stats.timedOut += 1 }
                stats.lastError = "\(error)"
            }
            context.logger.error("job run failed", metadata: ["error": "\(error)"])
            if case .retry(let policy) = job.options.failure, attempt < policy.attempts {
                guard let wait = nextBackoff(job, policy: policy, attempt: attempt, previous: previousWait) else {
                    context.logger.warning("job not retried: the scheduler is shutting down")
                    break
                }
                previousWait = wait
                do {
                    try await TimerLabel.$arming.withValue(job.label) { try await clock.sleep(for: wait) }
                } catch {
                    break
                }
                guard isRunning else {
                    context.logger.warning("job not retried: the scheduler is shutting down")
                    break
                }
                update(job.name) { $0.retries += 1 }
                attempt += 1
                continue
            }
            if case .stopJob = job.options.failure {
                update(job.name) { $0.isStopped = true }
                context.logger.error("job stopped after a failure; it will not run again")
            }
            break
        }
        update(job.name) { stats in
            if succeeded { stats.succeeded += 1 } else { stats.failed += 1 }
        }
        await claim.release(succeeded: succeeded)
        if job.options.delivery == .atLeastOnce { await saveCursor(of: job, date: request.date) }
    }

    private var isRunning: Bool {
        state.withLock { $0.phase == .running }
    }

    /// The wait before the next attempt, or `nil` when no retry may start (shutdown).
    private func nextBackoff(_ job: JobDefinition, policy: RetryPolicy, attempt: Int, previous: Duration?) -> Duration?
    {
        state.withLock { state -> Duration? in
            guard state.phase == .running, var record = state.jobs[job.name] else { return nil }
            let wait = policy.backoff.delay(retry: attempt, previous: previous, using: &record.random)
            state.jobs[job.name] = record
            return wait
        }
    }

    /// Runs the body once, under the job's timeout; returns its error, or ``JobError/Code/timedOut``.
    private func attemptOnce(_ job: JobDefinition, context: JobContext) async -> (any Error)? {
        guard let timeout = job.options.timeout else {
            do {
                try await job.body(context)
                return nil
            } catch {
                return error
            }
        }
        return await withTaskGroup(of: AttemptEvent.self) { group in
            group.addTask {
                do {
                    try await job.body(context)
                    return .finished(nil)
                } catch {
                    return .finished(error)
                }
            }
            group.addTask {
                do {
                    try await self.clock.sleep(for: timeout)
                    return .timerFired
                } catch {
                    return .timerCancelled
                }
            }
            var timedOut = false
            while let event = await group.next() {
                switch event {
                case .finished(let error):
                    group.cancelAll()
                    guard timedOut else { return error }
                    return JobError(
                        .timedOut, job: job.name,
                        message: "job \"\(job.name)\" ran longer than its timeout of \(timeout)")
                case .timerFired:
                    timedOut = true
                    group.cancelAll()
                case .timerCancelled:
                    continue
                }
            }
            return nil
        }
    }

    /// Reads a job's cursor; a store error is logged and counted, and the job plans without it.
    func loadCursor(of job: JobDefinition) async -> JobCursor? {
        do {
            return try await store.cursor(for: job.name)
        } catch {
            update(job.name) { $0.lastError = "\(error)" }
            logger.error(
                "job store: cannot read the cursor; the job plans from now",
                metadata: ["job": "\(job.name)", "error": "\(error)"])
            return nil
        }
    }

    /// Writes a job's cursor; a store error is logged and counted, and the job goes on.
    func saveCursor(of job: JobDefinition, date: Date) async {
        do {
            try await store.save(JobCursor(lastDate: date), for: job.name)
        } catch {
            update(job.name) { $0.lastError = "\(error)" }
            logger.error(
                "job store: cannot write the cursor", metadata: ["job": "\(job.name)", "error": "\(error)"])
        }
    }
}

/// What ends first in a run under a timeout.
private enum AttemptEvent: Sendable {
    case finished((any Error)?)
    case timerFired
    case timerCancelled
}
