import Foundation
import Tempo

extension JobScheduler {
    /// Plans one job's dates until its schedule ends, the job stops, or shutdown begins.
    func plan(_ job: JobDefinition) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.planDates(of: job) }
            group.addTask { await self.wait(for: .stop) }
            await group.next()
            group.cancelAll()
        }
    }

    private func planDates(of job: JobDefinition) async {
        let cursor = await runner.loadCursor(of: job)
        let start = wallClock()
        var source = DateSource(job.schedule, offset: job.offset, start: start, cursor: cursor?.lastDate)
        guard await catchUp(job, source: source, cursor: cursor?.lastDate, now: start) else { return }
        var reference = wallClock()
        var recovered = Date.distantPast
        while !Task.isCancelled {
            guard let date = source.next(after: reference) else {
                update(job.name) { $0.isStopped = true }
                logger.info("job has no more dates", metadata: ["job": "\(job.name)"])
                return
            }
            let due = clock.now.advanced(by: wallClock().duration(to: date))
            do {
                try await TimerLabel.$arming.withValue(job.label) {
                    try await clock.sleep(until: due, tolerance: nil)
                }
            } catch {
                return  // shutdown
            }
            let now = wallClock()
            if recoversAbandonedDates {
                guard await recoverAbandoned(job, before: date, now: now, after: &recovered) else { return }
            }
            // The run starts first: counting the dates slept through is not on its path.
            guard admit(job, date: date, due: due) else { return }
            let slept = source.dates(after: date, through: now).count
            if slept > 0 {
                update(job.name) { $0.missed += slept }
                logger.warning(
                    "job woke late; one run stands for the dates it slept through",
                    metadata: ["job": "\(job.name)", "missed": "\(slept)"])
            }
            if case .fixedDelay = job.schedule {
                await wait(for: .idle(job.name))
                reference = wallClock()
            } else {
                reference = max(date, now)
            }
        }
    }

    /// Runs the dates missed while the process was down, as the job's catch-up policy says; `false` when
    /// planning must end.
    private func catchUp(_ job: JobDefinition, source: DateSource, cursor: Date?, now: Date) async -> Bool {
        var missed: [Date] = []
        if let cursor {
            missed = source.dates(after: cursor, through: now)
        } else if case .once(let date, _) = job.schedule, date <= now {
            missed = [date]
        }
        guard !missed.isEmpty else { return true }
        let toRun: [Date]
        switch job.options.catchUp {
        case .skip: toRun = []
        case .once: toRun = [missed[missed.count - 1]]
        case .each(let within): toRun = missed.filter { $0 >= now.adding(.zero - within) }
        }
        update(job.name) { $0.missed += missed.count - toRun.count }
        logger.info(
            "job missed dates while the process was down",
            metadata: ["job": "\(job.name)", "missed": "\(missed.count)", "catchUp": "\(toRun.count)"])
        for date in toRun {
            let due = clock.now.advanced(by: wallClock().duration(to: date))
            guard admit(job, date: date, due: due) else { return false }
            await wait(for: .idle(job.name))
            if Task.isCancelled { return false }
        }
        return true
    }

    /// Runs, as the job's catch-up policy says, the dates before `date` whose runs another replica abandoned
    /// (``JobCoordinator/abandonedDates(job:before:logger:)``), after the running run ended and before `date`;
    /// at-least-once jobs only. `recovered` is the latest date recovered so far: earlier ones are not run again (for
    /// ``JobOptions/CatchUp/once``, one run stands for all of them). `false` when planning must end.
    private func recoverAbandoned(_ job: JobDefinition, before date: Date, now: Date, after recovered: inout Date)
        async -> Bool
    {
        guard job.options.delivery == .atLeastOnce, job.options.catchUp != .skip else { return true }
        let abandoned = await coordinator.abandonedDates(job: job.name, before: date, logger: logger)
            .filter { $0 > recovered }
        guard let latest = abandoned.last else { return true }
        let toRun: [Date]
        switch job.options.catchUp {
        case .skip: toRun = []
        case .once: toRun = [latest]
        case .each(let within): toRun = abandoned.filter { $0 >= now.adding(.zero - within) }
        }
        recovered = latest
        guard !toRun.isEmpty else { return true }
        logger.warning(
            "job runs dates whose runs were abandoned (their claims were lost)",
            metadata: [
                "job": "\(job.name)", "abandoned": "\(abandoned.count)", "catchUp": "\(toRun.count)",
                "job.dates": "\(toRun.map(\.timeIntervalSince1970))",
            ])
        await wait(for: .idle(job.name))
        for abandonedDate in toRun {
            if Task.isCancelled { return false }
            let due = clock.now.advanced(by: wallClock().duration(to: abandonedDate))
            guard admit(job, date: abandonedDate, due: due) else { return false }
            await wait(for: .idle(job.name))
        }
        return !Task.isCancelled
    }

    /// Hands a date that came to the overlap policy; starts, queues or skips its run. `false` when planning must
    /// end.
    private func admit(_ job: JobDefinition, date: Date, due: C.Instant) -> Bool {
        let since = origin.duration(to: due)
        let (admission, executor) = runner.state.withLock { ($0.admit(job, date: date, due: since), $0.executor) }
        switch admission {
        case .start(let request):
            runner.start(request, on: executor)
        case .skipped(let running):
            logger.warning(
                "job skipped a date: its previous run is still going",
                metadata: ["job": "\(job.name)", "job.date": "\(date.timeIntervalSince1970)", "running": "\(running)"])
        case .queued:
            logger.debug("job queued a date behind its running run", metadata: ["job": "\(job.name)"])
        case .stop:
            return false
        }
        return true
    }

    /// Changes one job's statistics under the lock.
    func update(_ name: String, _ change: (inout JobStats) -> Void) {
        runner.update(name, change)
    }

    /// Suspends until `reason` holds or the task is cancelled.
    func wait(for reason: WaitReason) async {
        let id = runner.state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = runner.state.withLock { state -> Bool in
                    if Task.isCancelled || state.isReady(reason) { return true }
                    state.addWaiter(id, reason, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            runner.state.withLock { $0.removeWaiter(id) }?.resume()
        }
    }
}
