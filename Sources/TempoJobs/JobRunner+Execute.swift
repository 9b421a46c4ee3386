import Foundation
import Logging
import Tempo

// The run path. A run's async frames share its task's first allocator slab with the body's (see JobRunner.swift):
// keep them small. An async function's frame holds what its inlined code keeps too, so the synchronous work of the
// path (the lock, statistics, logs, starting the queued run) is in `@inline(never)` functions, whose locals live on
// the thread's stack; what a successful run does not need (retries, timeouts) is in functions of its own.

extension JobRunner {
    /// Runs one date of a job if the coordinator grants it: its attempts under the failure policy, the cursor per
    /// the guarantee, then the queued run or the end. A date the coordinator cannot decide is left to the
    /// catch-up policy (``takeOutage(of:)``).
    func execute(_ request: RunRequest) async {
        let job = request.job
        let granted: (any JobClaim)?
        do {
            granted = try await coordinator.claim(job: job.name, plannedDate: request.date, logger: logger)
        } catch {
            claimUndecided(request, error: error)
            runEnded(request)
            return
        }
        if let claim = granted {
            if job.options.guarantee == .atMostOnce && !request.isRunNow {
                await saveCursor(of: job, date: request.date)
            }
            let context = firstAttempt(of: request, claim: claim)
            let started = wallClock()
            var ending = RunEnding(error: nil, attempts: 1)
            if let error = await attemptOnce(job, context: context) {
                ending = await retry(job, failed: context, error: error)
            }
            count(job, date: request.date, succeeded: ending.error == nil)
            await finish(request, claim: claim, started: started, ending: ending)
        } else {
            claimedElsewhere(request)
        }
        runEnded(request)
    }

    /// Runs the body once (under the job's timeout, if any); returns its error, or ``JobError/Code/timedOut``.
    private func attemptOnce(_ job: JobDefinition, context: JobContext) async -> (any Error)? {
        if let timeout = job.options.timeout { return await attemptOnce(job, context: context, timeout: timeout) }
        do {
            try await job.body(context)
            return nil
        } catch {
            return error
        }
    }

    // A twin of the public `retry(attempts:backoff:clock:_:)`, kept on purpose (issue #43): a job's retries follow
    // the scheduler's shutdown (a wait ends at once when shutdown begins), draw jitter from the job's seeded random
    // source, count in `JobStats` and are logged with the job's metadata, none of which the free function knows.
    // Both take their waits from the one `Backoff.delay(retry:previous:using:)`.
    /// Handles a failed attempt under the job's failure policy: counts and logs it, and runs the retries it allows;
    /// the last attempt's error (`nil` when one succeeded) and the attempts made.
    private func retry(_ job: JobDefinition, failed first: JobContext, error firstError: any Error) async -> RunEnding {
        var context = first
        var error = firstError
        var previousWait: Duration?
        while true {
            guard let wait = failed(job, context: context, error: error, previousWait: previousWait),
                await waitToRetry(job, for: wait, context: context)
            else { return RunEnding(error: error, attempts: context.attempt) }
            previousWait = wait
            context = nextAttempt(after: context)
            guard let next = await attemptOnce(job, context: context) else {
                return RunEnding(error: nil, attempts: context.attempt)
            }
            error = next
        }
    }

    /// Ends a run: records it in a ``JobControlStore``'s history with its claim's release and the cursor (one write
    /// where the store allows), or else releases the claim and writes an at-least-once cursor. A run-now run writes
    /// no cursor.
    private func finish(_ request: RunRequest, claim: any JobClaim, started: Date, ending: RunEnding) async {
        let job = request.job
        let writesCursor = job.options.guarantee == .atLeastOnce && !request.isRunNow
        if let controlStore {
            let run = record(of: request, claim: claim, started: started, ending: ending)
            do {
                try await controlStore.record(
                    run, cursor: writesCursor ? JobCursor(lastDate: request.date) : nil, releasing: claim)
            } catch {
                cursorNotSaved(job, error: error)
            }
        } else if writesCursor {
            await saveCursor(of: job, date: request.date, releasing: claim, succeeded: ending.error == nil)
        } else {
            await claim.release(succeeded: ending.error == nil)
        }
    }

    /// The history's record of a finished run.
    @inline(never)
    private func record(of request: RunRequest, claim: any JobClaim, started: Date, ending: RunEnding)
        -> JobRunRecord
    {
        let outcome: JobRunOutcome
        if let error = ending.error {
            if (error as? JobError)?.code == .timedOut {
                outcome = .timedOut
            } else if Task.isCancelled {
                outcome = .cancelled
            } else {
                outcome = .failed
            }
        } else {
            outcome = .succeeded
        }
        return JobRunRecord(
            job: request.job.name, plannedDate: request.date, trigger: request.isRunNow ? .runNow : .schedule,
            replica: replica, started: started, ended: wallClock(), attempts: ending.attempts, outcome: outcome,
            error: ending.error.map { "\($0)" }, fencingToken: claim.fencingToken)
    }

    /// The first attempt's context; its lateness runs from the date's due instant to now, the body's start (the
    /// claim and an at-most-once cursor write included).
    @inline(never)
    private func firstAttempt(of request: RunRequest, claim: any JobClaim) -> JobContext {
        let lateness = max(.zero, elapsed() - request.due)
        return JobContext(
            name: request.job.name, plannedDate: request.date, lateness: lateness, attempt: 1, logger: logger,
            claim: claim)
    }

    @inline(never)
    private func nextAttempt(after context: JobContext) -> JobContext {
        JobContext(
            name: context.name, plannedDate: context.plannedDate, lateness: context.lateness,
            attempt: context.attempt + 1, logger: logger, claim: context.claim)
    }

    @inline(never)
    private func count(_ job: JobDefinition, date: Date, succeeded: Bool) {
        state.withLock { state in
            guard var record = state.jobs[job.name] else { return }
            if succeeded { record.stats.succeeded += 1 } else { record.stats.failed += 1 }
            Outage.decided(date, in: &record)
            state.jobs[job.name] = record
        }
    }

    @inline(never)
    private func claimedElsewhere(_ request: RunRequest) {
        state.withLock { state in
            guard var record = state.jobs[request.job.name] else { return }
            record.stats.started -= 1
            record.stats.claimedElsewhere += 1
            Outage.decided(request.date, in: &record)
            state.jobs[request.job.name] = record
        }
        logger.debug(
            "job date claimed elsewhere; not run here",
            metadata: ["job": "\(request.job.name)", "job.date": "\(request.date.timeIntervalSince1970)"])
    }

    /// The coordinator could not decide the date (its database is down): the run did not start, and the date joins
    /// the job's outage, which the planner hands to the catch-up policy once a claim is decided again (a fixed
    /// delay's date counts as missed at once: its next date comes a delay after this one anyway).
    @inline(never)
    private func claimUndecided(_ request: RunRequest, error: any Error) {
        let date = request.date
        state.withLock { state in
            guard var record = state.jobs[request.job.name] else { return }
            record.stats.started -= 1
            record.stats.lastError = "\(error)"
            if case .fixedDelay = request.job.schedule {
                record.stats.missed += 1
            } else {
                // A new span, or the last one, not yet handed over, goes on: from the last decided date on.
                let after = min(
                    record.outage?.after ?? date.justBefore, record.lastDecided ?? date.justBefore, date.justBefore)
                record.outage = Outage(after: after, through: max(record.outage?.through ?? date, date))
            }
            state.jobs[request.job.name] = record
        }
        logger.warning(
            "job date not decided by the coordinator; left to the catch-up policy",
            metadata: [
                "job": "\(request.job.name)", "job.date": "\(date.timeIntervalSince1970)", "error": "\(error)",
            ])
    }

    /// Counts and logs a failed attempt; returns the wait before the next attempt, or `nil` when none follows (the
    /// policy's last attempt, a stopping job, or shutdown).
    @inline(never)
    private func failed(_ job: JobDefinition, context: JobContext, error: any Error, previousWait: Duration?)
        -> Duration?
    {
        let timedOut = (error as? JobError)?.code == .timedOut
        update(job.name) { stats in
            stats.failedAttempts += 1
            if timedOut { stats.timedOut += 1 }
            stats.lastError = "\(error)"
        }
        context.logger.error("job run failed", metadata: ["error": "\(error)"])
        if (error as? JobError)?.code == .claimLost {
            context.logger.warning(
                """
                job not retried: its claim was lost (the date is left to the replica that took it over, or to the \
                catch-up of abandoned dates)
                """)
            return nil
        }
        if case .retry(let policy) = job.options.failure.kind, context.attempt < policy.attempts {
            guard let wait = nextBackoff(job, policy: policy, attempt: context.attempt, previous: previousWait) else {
                context.logger.warning("job not retried: the scheduler is shutting down")
                return nil
            }
            return wait
        }
        if job.options.failure == .stopJob {
            update(job.name) { $0.isStopped = true }
            context.logger.error("job stopped after a failure; it will not run again")
        }
        return nil
    }

    /// Waits before a retry; `false` when the wait was cancelled or shutdown began meanwhile (which ends the wait at
    /// once: no retry may start after shutdown).
    private func waitToRetry(_ job: JobDefinition, for wait: Duration, context: JobContext) async -> Bool {
        let slept = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    try await TimerLabel.$arming.withValue(job.label) { try await self.sleep(wait) }
                    return true
                } catch {
                    return false
                }
            }
            group.addTask {
                await self.wait(for: .stop)
                return false
            }
            let slept = await group.next() ?? false
            group.cancelAll()
            return slept
        }
        guard slept, isRunning else {
            context.logger.warning("job not retried: the scheduler is shutting down")
            return false
        }
        update(job.name) { $0.retries += 1 }
        return true
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

    /// Runs the body once under `timeout`; returns its error, or ``JobError/Code/timedOut``.
    ///
    /// A twin of Tempo's `withTimeout(after:leeway:clock:operation:)`, kept on purpose (issue #43): both cancel the
    /// body and wait for it (structured), but this one sleeps through the scheduler's injected `sleep` (virtual time
    /// in tests, the job scheduler's clock) and reports the job's own `JobError.timedOut` naming the job.
    /// TempoPostgres' `withTimeout` is the third, and differs in kind: it leaves a body that ignores cancellation
    /// behind (a query waiting for a pool connection), which a job body must never be.
    private func attemptOnce(_ job: JobDefinition, context: JobContext, timeout: Duration) async -> (any Error)? {
        await withTaskGroup(of: AttemptEvent.self) { group in
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
                    try await self.sleep(timeout)
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
}

/// How a run's attempts ended: the last one's error (`nil`: it succeeded) and how many were made.
struct RunEnding {
    var error: (any Error)?
    var attempts: Int
}

/// What ends first in a run under a timeout.
private enum AttemptEvent: Sendable {
    case finished((any Error)?)
    case timerFired
    case timerCancelled
}
