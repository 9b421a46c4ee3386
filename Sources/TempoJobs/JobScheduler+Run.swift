import ServiceLifecycle

extension JobScheduler {
    /// Runs the jobs until graceful shutdown (the `ServiceGroup`'s or ``triggerGracefulShutdown()``) or
    /// cancellation, and returns when the last run has ended or was abandoned.
    ///
    /// On graceful shutdown no new run or retry starts and planning ends at once; running runs get the grace
    /// period, then their tasks are cancelled and an error log names the jobs still running; runs that still have
    /// not ended ``Configuration/abandonAfter`` later are abandoned, named in a second error log, and `run()`
    /// returns without them. Cancelling the task of `run()` cancels every run at once (the abandon wait follows).
    ///
    /// - Throws: ``JobError`` with ``JobError/Code/alreadyStarted`` if the scheduler runs or ran already, or with
    ///   ``JobError/Code/invalidOptions`` (before any job starts) when the configuration's grace period or abandon
    ///   delay is negative or past 100 years. Errors of jobs are never thrown here: they are logged and counted per job.
    public func run() async throws {
        for (name, value) in [("gracePeriod", configuration.gracePeriod), ("abandonAfter", configuration.abandonAfter)]
        where value < .zero || value > JobDefinition.maximumDuration {
            throw JobError(
                .invalidOptions, message: "\(name) must be between zero and 100 years (36,500 days), got \(value)")
        }
        let (newJobs, newJobsContinuation) = AsyncStream.makeStream(of: JobDefinition.self)
        let executor = currentTaskExecutor()
        let jobs = try runner.state.withLock { state throws(JobError) -> [JobDefinition]? in
            guard !state.hasRun else {
                throw JobError(.alreadyStarted, message: "run() was called on a scheduler that runs or ran already")
            }
            state.hasRun = true
            guard state.phase == .idle else { return nil }
            state.phase = .running
            state.newJobs = newJobsContinuation
            state.executor = executor
            return state.order.compactMap { state.jobs[$0]?.definition }
        }
        guard let jobs else { return }  // shut down before it started
        logger.info("job scheduler starting", metadata: ["jobs": "\(jobs.count)"])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                // Planning ends when shutdown begins (it finishes `newJobs` and stops every planner). Planners are
                // unstructured tasks that `run()` waits for with the runs, not child tasks: a run starts on its
                // planner's thread (see `JobRunner.start`), so a body that blocks its thread holds its planner too,
                // and `run()` must be able to abandon both.
                self.startControl(on: executor)
                for job in jobs { self.startPlanner(job, on: executor) }
                for await job in newJobs { self.startPlanner(job, on: executor) }
                await self.waitForRuns()
            } onGracefulShutdown: {
                self.beginShutdown()
            }
        } onCancel: {
            self.beginShutdown()
            self.endGracePeriod()
        }
        runner.state.withLock { $0.executor = nil }
        logger.info("job scheduler stopped")
    }

    /// Starts the planner of `job` in a task of its own, counted in the state until it ends.
    private func startPlanner(_ job: JobDefinition, on executor: (any TaskExecutor)?) {
        runner.state.withLock { $0.planners += 1 }
        Task(executorPreference: executor) {
            await self.plan(job)
            let drained = self.runner.state.withLock { state -> Drained? in
                state.planners -= 1
                return state.finishIfDone()
            }
            drained?.resume()
        }
    }

    /// Follows the store's control (``JobControlStore/controlUpdates()``) in a task of its own, counted as a planner,
    /// until shutdown; marks the control read at once for a store that is not a ``JobControlStore``.
    private func startControl(on executor: (any TaskExecutor)?) {
        guard let controlStore = runner.controlStore else {
            runner.state.withLock { $0.controlRead = true }
            return
        }
        runner.state.withLock { $0.planners += 1 }
        Task(executorPreference: executor) {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await controls in controlStore.controlUpdates() { self.apply(controls) }
                }
                group.addTask { await self.runner.wait(for: .stop) }
                await group.next()
                group.cancelAll()
            }
            let drained = self.runner.state.withLock { state -> Drained? in
                state.planners -= 1
                for waiter in state.controlWaiters.values { waiter.resume() }
                state.controlWaiters = [:]
                state.controlRead = true
                return state.finishIfDone()
            }
            drained?.resume()
        }
    }

    /// Applies one control update: pauses and resumes, and starts the run-now runs it allows.
    private func apply(_ controls: [String: JobControl]) {
        let now = origin.duration(to: clock.now)
        let (applied, executor) = runner.state.withLock { ($0.apply(controls, due: now), $0.executor) }
        for waiter in applied.resume { waiter.resume() }
        for request in applied.start {
            logger.info(
                "job runs now: an operator asked",
                metadata: ["job": "\(request.job.name)", "job.date": "\(request.date.timeIntervalSince1970)"])
            runner.start(request, on: executor)
        }
    }

    /// Suspends until no run or planner is left, or the runs still going were abandoned.
    private func waitForRuns() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = runner.state.withLock { state -> Drained? in
                if state.phase == .finished { return Drained(waiter: continuation, timer: nil) }
                if let drained = state.finishIfDone() { return Drained(waiter: continuation, timer: drained.timer) }
                state.drainWaiter = continuation
                return nil
            }
            drained?.resume()
        }
    }

    /// Stops planning and starts the grace period (or ends the wait of `run()` when nothing runs).
    func beginShutdown() {
        let shutdown = runner.state.withLock { state -> Shutdown? in
            switch state.phase {
            case .idle:
                state.phase = .finished
                return nil
            case .running:
                state.phase = .draining
                let newJobs = state.newJobs
                state.newJobs = nil
                return Shutdown(
                    drained: state.finishIfDone(), running: state.runningJobs, stop: state.takeStopWaiters(),
                    newJobs: newJobs, publishes: state.jobs.values.compactMap { $0.publishing ? $0.publishTask : nil },
                    executor: state.executor)
            case .draining, .cancelling, .finished:
                return nil
            }
        }
        guard let shutdown else { return }
        logger.info(
            "job scheduler shutting down: no new runs",
            metadata: [
                "running": "\(shutdown.running.joined(separator: ", "))", "grace": "\(configuration.gracePeriod)",
            ])
        shutdown.newJobs?.finish()
        for publish in shutdown.publishes { publish.cancel() }
        for planner in shutdown.stop { planner.resume() }
        if let drained = shutdown.drained {
            drained.resume()
        } else if configuration.gracePeriod == .zero {
            endGracePeriod()
        } else {
            startTimer(after: configuration.gracePeriod, while: .draining, on: shutdown.executor) {
                $0.endGracePeriod()
            }
        }
    }

    /// What ``beginShutdown()`` does once the lock is released.
    private struct Shutdown {
        let drained: Drained?
        let running: [String]
        let stop: [CheckedContinuation<Void, Never>]
        let newJobs: AsyncStream<JobDefinition>.Continuation?
        /// The writes of jobs' next dates in flight: cancelled (`run()` waits for them to end).
        let publishes: [Task<Void, Never>]
        let executor: (any TaskExecutor)?
    }

    /// The grace period ended (or `run()` was cancelled): cancels the runs still going, names their jobs, and
    /// starts the abandon timer.
    func endGracePeriod() {
        let cancelled = runner.state.withLock {
            state -> (tasks: [Task<Void, Never>], jobs: [String], timer: Task<Void, Never>?)? in
            guard state.phase == .draining else { return nil }
            state.phase = .cancelling
            defer { state.timer = nil }
            return (state.runs.values.compactMap(\.task), state.runningJobs, state.timer)
        }
        guard let cancelled else { return }
        cancelled.timer?.cancel()
        logger.error(
            "job scheduler: grace period ended; cancelling runs still going",
            metadata: ["jobs": "\(cancelled.jobs.joined(separator: ", "))", "grace": "\(configuration.gracePeriod)"])
        for task in cancelled.tasks { task.cancel() }
        guard configuration.abandonAfter > .zero else { return abandonRuns() }
        let executor = runner.state.withLock { $0.executor }
        startTimer(after: configuration.abandonAfter, while: .cancelling, on: executor) { $0.abandonRuns() }
    }

    /// Starts the shutdown's timer: a task that sleeps `delay` on the scheduler's clock, then calls `action`. The
    /// task is kept (for cancelling) while the scheduler is still in `phase`, and cancelled at once otherwise.
    private func startTimer(
        after delay: Duration, while phase: Phase, on executor: (any TaskExecutor)?,
        _ action: @escaping @Sendable (JobScheduler) -> Void
    ) {
        let timer = Task(executorPreference: executor) {
            guard (try? await self.clock.sleep(for: delay)) != nil else { return }
            action(self)
        }
        let kept = runner.state.withLock { state in
            guard state.phase == phase else { return false }
            state.timer = timer
            return true
        }
        if !kept { timer.cancel() }
    }

    /// The abandon timer fired: `run()` returns, naming the jobs whose runs ignored cancellation.
    private func abandonRuns() {
        let abandoned = runner.state.withLock { state -> (jobs: [String], drained: Drained)? in
            guard state.phase == .cancelling else { return nil }
            return (state.runningJobs, state.finish())
        }
        guard let abandoned else { return }
        if !abandoned.jobs.isEmpty {
            logger.error(
                "job scheduler: runs ignored cancellation; returning without them",
                metadata: [
                    "jobs": "\(abandoned.jobs.joined(separator: ", "))",
                    "abandonAfter": "\(configuration.abandonAfter)",
                ])
        }
        abandoned.drained.resume()
    }

    /// The task executor the current task prefers (a `VirtualClock` run's in tests), for the tasks the scheduler
    /// starts; `nil` for the default (the global concurrent executor).
    private func currentTaskExecutor() -> (any TaskExecutor)? {
        guard #available(macOS 26.4, iOS 26.4, watchOS 26.4, tvOS 26.4, visionOS 26.4, *) else { return nil }
        return withUnsafeCurrentTask { $0?.unownedTaskExecutor?.asTaskExecutor() }
    }
}
