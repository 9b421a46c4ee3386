import ServiceLifecycle

extension JobScheduler {
    /// Runs the jobs until graceful shutdown (the `ServiceGroup`'s or ``triggerGracefulShutdown()``) or
    /// cancellation, and returns when the last run has ended.
    ///
    /// On graceful shutdown no new run or retry starts and planning ends at once; running runs get the grace
    /// period, then their tasks are cancelled and an error log names the jobs still running. Cancelling the task
    /// of `run()` cancels every run at once.
    ///
    /// - Throws: ``JobError`` with ``JobError/Code/alreadyStarted`` if the scheduler runs or ran already. Errors
    ///   of jobs are never thrown here: they are logged and counted per job.
    public func run() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: Command.self)
        let (newJobs, newJobsContinuation) = AsyncStream.makeStream(of: JobDefinition.self)
        let jobs = try state.withLock { state throws(JobError) -> [JobDefinition]? in
            guard !state.hasRun else {
                throw JobError(.alreadyStarted, message: "run() was called on a scheduler that runs or ran already")
            }
            state.hasRun = true
            guard state.phase == .idle else { return nil }
            state.phase = .running
            state.commands = continuation
            state.newJobs = newJobsContinuation
            state.planners = state.order.count
            return state.order.compactMap { state.jobs[$0]?.definition }
        }
        guard let jobs else { return }  // shut down before it started
        logger.info("job scheduler starting", metadata: ["jobs": "\(jobs.count)"])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withDiscardingTaskGroup { group in
                    group.addTask {
                        await withDiscardingTaskGroup { planners in
                            for job in jobs {
                                planners.addTask { await self.plan(job) }
                            }
                            for await job in newJobs {
                                planners.addTask { await self.plan(job) }
                            }
                        }
                    }
                    for await command in stream {
                        switch command {
                        case .run(let request):
                            group.addTask { await self.execute(request) }
                        case .graceTimer:
                            group.addTask { await self.runGraceTimer() }
                        case .cancelRuns:
                            group.cancelAll()
                        }
                    }
                    // Nothing is left but, perhaps, the grace timer.
                    group.cancelAll()
                }
            } onGracefulShutdown: {
                self.beginShutdown()
            }
        } onCancel: {
            self.beginShutdown()
        }
        state.withLock { $0.phase = .finished }
        logger.info("job scheduler stopped")
    }

    /// Stops planning and starts the grace period (or ends `run()` at once when nothing runs).
    func beginShutdown() {
        let shutdown = state.withLock { state -> Shutdown? in
            switch state.phase {
            case .idle:
                state.phase = .finished
                return nil
            case .running:
                state.phase = .draining
                let commands = state.commands
                let stop = state.takeStopWaiters()
                let newJobs = state.newJobs
                state.newJobs = nil
                return Shutdown(
                    commands: commands, finish: state.finishIfDone(), running: state.runningJobs, stop: stop,
                    newJobs: newJobs)
            case .draining, .finished:
                return nil
            }
        }
        guard let shutdown, let commands = shutdown.commands else { return }
        let (finish, running) = (shutdown.finish, shutdown.running)
        logger.info(
            "job scheduler shutting down: no new runs",
            metadata: ["running": "\(running.joined(separator: ", "))", "grace": "\(configuration.gracePeriod)"])
        if let finish {
            finish.finish()
        } else {
            commands.yield(.graceTimer)
        }
        shutdown.newJobs?.finish()
        for planner in shutdown.stop { planner.resume() }
    }

    /// What ``beginShutdown()`` does once the lock is released.
    private struct Shutdown {
        let commands: AsyncStream<Command>.Continuation?
        let finish: AsyncStream<Command>.Continuation?
        let running: [String]
        let stop: [CheckedContinuation<Void, Never>]
        let newJobs: AsyncStream<JobDefinition>.Continuation?
    }

    /// Waits the grace period; then cancels the runs still going and names their jobs.
    func runGraceTimer() async {
        do {
            try await clock.sleep(for: configuration.gracePeriod)
        } catch {
            return  // every run ended before the grace period did
        }
        let (running, commands) = state.withLock { ($0.runningJobs, $0.commands) }
        guard !running.isEmpty, let commands else { return }
        logger.error(
            "job scheduler: grace period ended; cancelling runs still going",
            metadata: ["jobs": "\(running.joined(separator: ", "))", "grace": "\(configuration.gracePeriod)"])
        commands.yield(.cancelRuns)
    }
}
