import Foundation
import Logging
import TempoLocks

// A run's task allocates its async frames on the task allocator, whose first slab (about 1,000 bytes) is malloc'd at
// the task's first allocation, and each further slab when a frame does not fit. Before this type, the run path was
// code of the generic `JobScheduler<C>` (unspecialized, with large frames: 960 bytes for `execute`, 2,176 for the
// attempts), and a run's frames took five slabs: four `malloc`s per run beyond the body's task (issue #32). Here the
// run path is not generic, one async function keeps only what crosses an `await`, its synchronous work is in
// `@inline(never)` functions (their locals stay on the thread's stack), and retries and timeouts live in functions a
// successful run never calls: a run and the bench's body fit the first slab (Benchmarks/README.md).

/// The part of a ``JobScheduler`` that starts and executes runs and owns the scheduler's state; not generic over the
/// clock, which it reaches through two closures.
///
/// Thread-safety: state lives behind ``state``; every method may be called from any task, and none calls a job's
/// body or a coordinator while holding the lock.
final class JobRunner: Sendable {
    /// The scheduler's state.
    let state = TempoMutex(SchedulerState())
    let store: any JobStore
    /// The store as a ``JobControlStore`` (its runs are recorded in its history), or `nil`.
    let controlStore: (any JobControlStore)?
    let coordinator: any JobCoordinator
    /// The coordinator's replica name, read once.
    let replica: String
    /// The scheduler's wall clock (the runs' start and end in the history).
    let wallClock: @Sendable () -> Date
    let logger: Logger
    /// The time on the scheduler's clock since its origin (the due instants in the state are measured from it).
    let elapsed: @Sendable () -> Duration
    /// Sleeps for a duration on the scheduler's clock (a timeout, a retry's wait); throws when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init(
        store: any JobStore, coordinator: any JobCoordinator, logger: Logger,
        wallClock: @escaping @Sendable () -> Date,
        elapsed: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.store = store
        self.controlStore = store as? any JobControlStore
        self.coordinator = coordinator
        self.replica = coordinator.replica
        self.wallClock = wallClock
        self.logger = logger
        self.elapsed = elapsed
        self.sleep = sleep
    }

    /// Starts a run's task (unstructured, so that `run()` can return without it) on `executor` (`nil`: the global
    /// concurrent executor).
    ///
    /// The task starts immediately: the body runs on the caller's thread (the planner's, at the date) until it
    /// first suspends, with no hop through the executor's queue (in the bench, a job's lateness went from 1.8x to
    /// 1.5x a bare `Task.sleep(until:)` loop's). Before macOS 26 (and its peers) the task is enqueued instead. The
    /// run's lateness is measured when its body starts (after the claim, and an at-most-once cursor write).
    func start(_ request: RunRequest, on executor: (any TaskExecutor)?) {
        let task: Task<Void, Never>
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            task = Task.immediate(executorPreference: executor) { await self.execute(request) }
        } else {
            task = Task(executorPreference: executor) { await self.execute(request) }
        }
        if state.withLock({ $0.attach(task, to: request.id) }) { task.cancel() }
    }

    /// A run ended: starts the job's queued run, resumes the planners waiting for the job to be idle, and ends the
    /// wait of `run()` when it was the last.
    @inline(never)
    func runEnded(_ request: RunRequest) {
        let (ended, executor) = state.withLock { ($0.runEnded(request, now: elapsed), $0.executor) }
        if let next = ended.next { start(next, on: executor) }
        for waiter in ended.resume { waiter.resume() }
        ended.drained?.resume()
    }

    /// Changes one job's statistics under the lock.
    func update(_ name: String, _ change: (inout JobStats) -> Void) {
        state.withLock { state in
            if var record = state.jobs[name] {
                change(&record.stats)
                state.jobs[name] = record
            }
        }
    }

    /// Suspends until `reason` holds or the task is cancelled.
    func wait(for reason: WaitReason) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled || state.isReady(reason) { return true }
                    state.addWaiter(id, reason, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.removeWaiter(id) }?.resume()
        }
    }

    /// The span of dates of `job` whose claims the coordinator could not decide, once a claim was decided again (and
    /// forgets it: the planner hands the span to the catch-up policy); `nil` otherwise.
    func takeOutage(of job: String) -> Outage? {
        state.withLock { state in
            guard let outage = state.jobs[job]?.outage, outage.isOver else { return nil }
            state.jobs[job]?.outage = nil
            return outage
        }
    }

    /// Whether the scheduler still runs (no shutdown began).
    var isRunning: Bool {
        state.withLock { $0.phase == .running }
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
            cursorNotSaved(job, error: error)
        }
    }

    /// Releases a run's claim and writes its job's cursor (one write where the store allows); a store error is
    /// logged and counted, and the job goes on.
    func saveCursor(of job: JobDefinition, date: Date, releasing claim: any JobClaim, succeeded: Bool) async {
        do {
            try await store.save(JobCursor(lastDate: date), for: job.name, releasing: claim, succeeded: succeeded)
        } catch {
            cursorNotSaved(job, error: error)
        }
    }

    @inline(never)
    func cursorNotSaved(_ job: JobDefinition, error: any Error) {
        update(job.name) { $0.lastError = "\(error)" }
        logger.error("job store: cannot write the cursor", metadata: ["job": "\(job.name)", "error": "\(error)"])
    }
}
