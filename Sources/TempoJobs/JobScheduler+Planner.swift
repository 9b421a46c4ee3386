import Foundation
import Tempo
import TempoPlans

extension JobScheduler {
    /// Plans one job's dates until its schedule ends, the job stops, or shutdown begins.
    func plan(_ job: JobDefinition) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.planDates(of: job) }
            group.addTask { await self.runner.wait(for: .stop) }
            await group.next()
            group.cancelAll()
        }
    }

    private func planDates(of job: JobDefinition) async {
        let cursor = await runner.loadCursor(of: job)
        await runner.wait(for: .control)
        let start = wallClock()
        var source = DateSource(job.schedule, offset: job.offset, start: start, cursor: cursor?.lastDate)
        publish(job, source: source, after: start)
        // Dates before a resume were the pause's: they are not caught up.
        let resumed = runner.state.withLock { $0.jobs[job.name]?.controlChangedAt }
        let after = [cursor?.lastDate, resumed].compactMap { $0 }.max()
        guard await catchUpAtStart(job, source: source, cursor: after, now: start) else { return }
        var reference = wallClock()
        var abandonedMemory = AbandonedMemory()
        while !Task.isCancelled {
            guard let date = source.next(after: reference) else {
                update(job.name) { $0.isStopped = true }
                logger.info("job has no more dates", metadata: ["job": "\(job.name)"])
                return
            }
            if runner.state.withLock({ $0.jobs[job.name]?.republishAfter.map { date > $0 } ?? false }) {
                publish(job, source: source, after: reference)
            }
            guard let due = dueInstant(of: date) else { return }
            do {
                try await TimerLabel.$arming.withValue(job.label) {
                    try await clock.sleep(until: due, tolerance: nil)
                }
            } catch {
                return  // shutdown
            }
            let now = wallClock()
            if recoversAbandonedDates {
                guard await recoverAbandoned(job, before: date, now: now, memory: &abandonedMemory) else { return }
                guard await recoverOutage(job, before: date, source: source, now: now) else { return }
            }
            if source.isFixedDelay {
                guard admit(job, date: date, due: due) else { return }
                await runner.wait(for: .idle(job.name))
                reference = wallClock()
                continue
            }
            // The dates after `date` that passed too (the process was suspended, or the wall clock jumped). Under
            // `.skip` the run of `date` starts first: counting the dates slept through is not on its path.
            if job.options.catchUp == .skip {
                guard admit(job, date: date, due: due) else { return }
                if let later = source.late(after: date, through: now) { sleptThrough(job, later) }
            } else if let later = source.late(after: date, through: now) {
                guard await wokeLate(job, date: date, later: later, source: source, now: now) else { return }
            } else {
                guard admit(job, date: date, due: due) else { return }
            }
            reference = max(date, now)
        }
    }

    /// The instant on the scheduler's clock that stands for `date` on the wall clock now; `nil` (planning ends,
    /// logged) for a date too far to wait for, which validation at registration rules out.
    private func dueInstant(of date: Date) -> C.Instant? {
        let seconds = wallClock().distance(to: date)
        guard seconds.isFinite, abs(seconds) < 300 * 365.25 * 86_400 else {
            logger.error("job date too far to wait for; planning ends", metadata: ["job.date": "\(seconds) s away"])
            return nil
        }
        return clock.now.advanced(by: .seconds(seconds))
    }

    /// Counts the dates a wake under ``JobOptions/CatchUp/skip`` found passed after the date it woke for, whose run
    /// stands for them.
    private func sleptThrough(_ job: JobDefinition, _ later: LateDates) {
        count(job, missed: later.count, isLowerBound: later.countIsLowerBound)
        logger.warning(
            "job woke late; one run stands for the dates it slept through",
            metadata: ["job": "\(job.name)", "missed": "\(later.count)\(later.countIsLowerBound ? "+" : "")"])
    }

    /// A wake that found dates after `date` passed too, under ``JobOptions/CatchUp/once`` or
    /// ``JobOptions/CatchUp/each(within:)``: `date` and those dates are late dates, handled as after downtime
    /// (``catchUp(_:source:after:through:now:reason:idleAfterLast:)``). `false` when planning must end.
    private func wokeLate(_ job: JobDefinition, date: Date, later: LateDates, source: DateSource, now: Date) async
        -> Bool
    {
        await catchUp(
            job, source: source, after: date.justBefore, through: now, now: now, reason: "woke late",
            idleAfterLast: false)
    }

    /// Runs the dates missed while the process was down (after the stored cursor; without a cursor, a one-date
    /// schedule's past date), as the job's catch-up policy says; `false` when planning must end.
    private func catchUpAtStart(_ job: JobDefinition, source: DateSource, cursor: Date?, now: Date) async -> Bool {
        let after: Date
        if let cursor {
            after = cursor
        } else if case .once = job.schedule {
            after = .distantPast
        } else {
            return true
        }
        return await catchUp(
            job, source: source, after: after, through: now, now: now, reason: "while the process was down",
            idleAfterLast: true)
    }

    /// Runs, as the job's catch-up policy says, the dates before `date` from the start of an outage (the dates its
    /// coordinator could not decide, its database being down, and those skipped meanwhile), once a claim of the job
    /// was decided again; `false` when planning must end.
    private func recoverOutage(_ job: JobDefinition, before date: Date, source: DateSource, now: Date) async -> Bool {
        guard let outage = runner.takeOutage(of: job.name) else { return true }
        await runner.wait(for: .idle(job.name))
        return await catchUp(
            job, source: source, after: outage.after, through: min(outage.through, date.justBefore), now: now,
            reason: "while the coordinator was unavailable", idleAfterLast: true)
    }

    /// The one place a catch-up policy meets late dates: the schedule's dates in `after <.. through`, at `now`.
    ///
    /// ``JobOptions/CatchUp/skip`` runs none; ``JobOptions/CatchUp/once`` runs the latest; and
    /// ``JobOptions/CatchUp/each(within:)`` runs, oldest first and one after another, exactly the dates not older
    /// than `now - within`. The others count as ``JobStats/missed`` (a lower bound, flagged, past the plans' count
    /// limit). Bounded in time and memory whatever the span: the dates are summarized by the plans' engine
    /// (``DateSource/late(after:through:)``) and the window's dates computed one at a time as they run. `false` when
    /// planning must end.
    func catchUp(
        _ job: JobDefinition, source: DateSource, after: Date, through: Date, now: Date, reason: String,
        idleAfterLast: Bool
    ) async -> Bool {
        guard let late = source.late(after: after, through: through) else { return true }
        var missed = late.count
        var lowerBound = late.countIsLowerBound
        switch job.options.catchUp.kind {
        case .skip:
            break
        case .once:
            missed -= 1
        case .each(let within):
            let windowStart = now.adding(.zero - within)
            if late.latest >= windowStart {
                let older = source.late(after: after, through: windowStart.justBefore)
                missed = older?.count ?? 0
                lowerBound = older?.countIsLowerBound ?? false
            }
        }
        count(job, missed: missed, isLowerBound: lowerBound)
        logger.info(
            "job missed dates \(reason)",
            metadata: [
                "job": "\(job.name)", "missed": "\(late.count)\(late.countIsLowerBound ? "+" : "")",
                "catchUp": "\(job.options.catchUp)",
            ])
        switch job.options.catchUp.kind {
        case .skip:
            return true
        case .once:
            return await run(job, late.latest, idleAfter: idleAfterLast)
        case .each(let within):
            let windowStart = now.adding(.zero - within)
            if source.isFixedDelay {
                guard late.latest >= windowStart else { return true }
                return await run(job, late.latest, idleAfter: idleAfterLast)
            }
            var dates = source
            var next = dates.next(after: max(after, windowStart.justBefore))
            while let date = next, date <= through {
                next = dates.next(after: date)
                let isLast = next.map { $0 > through } ?? true
                guard await run(job, date, idleAfter: !isLast || idleAfterLast) else { return false }
            }
            return true
        }
    }

    /// Admits one catch-up date and, if `idleAfter`, waits for the job's runs to end; `false` when planning must
    /// end.
    private func run(_ job: JobDefinition, _ date: Date, idleAfter: Bool) async -> Bool {
        guard let due = dueInstant(of: date), admit(job, date: date, due: due) else { return false }
        guard idleAfter else { return true }
        await runner.wait(for: .idle(job.name))
        return !Task.isCancelled
    }

    private func count(_ job: JobDefinition, missed: Int, isLowerBound: Bool) {
        guard missed > 0 || isLowerBound else { return }
        update(job.name) { stats in
            stats.missed += missed
            stats.missedIsLowerBound = stats.missedIsLowerBound || isLowerBound
        }
    }

    /// Runs, as the job's catch-up policy says, the dates before `date` whose runs another replica abandoned
    /// (``JobCoordinator/abandonedDates(job:before:logger:)``), after the running run ended and before `date`;
    /// at-least-once jobs only. `memory.handed` holds the abandoned dates already handed to the policy and still
    /// reported: they are not handed again (for ``JobOptions/CatchUp/once``, one run stood for all of them; a
    /// coordinator may answer from a cache read before they ran). It is a set, not the latest date: leases end in
    /// any order (a replica renews a running claim), so an earlier date can be reported after a later one was run.
    /// The dates the policy does not run are settled with the coordinator
    /// (``JobCoordinator/settleAbandoned(job:dates:logger:)``) and counted in ``JobStats/missed``; settled again
    /// before a later date while still reported (the coordinator could not settle them).
    /// `false` when planning must end.
    private func recoverAbandoned(_ job: JobDefinition, before date: Date, now: Date, memory: inout AbandonedMemory)
        async -> Bool
    {
        guard job.options.guarantee == .atLeastOnce, job.options.catchUp != .skip else { return true }
        let reported = await coordinator.abandonedDates(job: job.name, before: date, logger: logger)
        // A date no longer reported was run, or is held again: if it is reported once more, its new claim was lost.
        memory.handed.formIntersection(reported)
        memory.dropped.formIntersection(reported)
        if !memory.dropped.isEmpty {
            await coordinator.settleAbandoned(job: job.name, dates: memory.dropped.sorted(), logger: logger)
        }
        let abandoned = reported.filter { !memory.handed.contains($0) }
        guard let latest = abandoned.last else { return true }
        let toRun: [Date]
        switch job.options.catchUp.kind {
        case .skip: toRun = []
        case .once: toRun = [latest]
        case .each(let within): toRun = abandoned.filter { $0 >= now.adding(.zero - within) }
        }
        memory.handed.formUnion(abandoned)
        // The dates the policy does not run are done: settled first, so that a restart cannot find them again (a
        // crash before `toRun` ran leaves those to be found and run).
        let dropped = abandoned.filter { !toRun.contains($0) }
        if !dropped.isEmpty {
            await coordinator.settleAbandoned(job: job.name, dates: dropped, logger: logger)
            count(job, missed: dropped.count, isLowerBound: false)
            memory.dropped.formUnion(dropped)
        }
        guard !toRun.isEmpty else { return true }
        logger.warning(
            "job runs dates whose runs were abandoned (their claims were lost)",
            metadata: [
                "job": "\(job.name)", "abandoned": "\(abandoned.count)", "catchUp": "\(toRun.count)",
                "job.dates": "\(toRun.map(\.timeIntervalSince1970))",
            ])
        await runner.wait(for: .idle(job.name))
        for abandonedDate in toRun {
            if Task.isCancelled { return false }
            guard await run(job, abandonedDate, idleAfter: true) else { return false }
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
        case .paused:
            logger.debug(
                "job paused; date not run",
                metadata: ["job": "\(job.name)", "job.date": "\(date.timeIntervalSince1970)"])
        case .stop:
            return false
        }
        return true
    }

    /// Publishes the job's schedule in words and its next dates after `reference` to a ``JobControlStore``, in a task
    /// of its own (one at a time per job; the planner does not wait, `run()` does before it returns, and shutdown
    /// cancels it, so that a store that retries while its database is down does not hold `run()`): the planner
    /// publishes again once it plans a date past the first three quarters of them. A store error is logged at
    /// warning level.
    private func publish(_ job: JobDefinition, source: DateSource, after reference: Date) {
        guard let controlStore = runner.controlStore else { return }
        var dates: [Date] = []
        var copy = source
        var last = reference
        let count = source.isFixedDelay ? 1 : JobDescription.publishedDates
        while dates.count < count, let date = copy.next(after: last) {
            dates.append(date)
            last = date
        }
        let republishAfter = dates.count > 1 ? dates[dates.count * 3 / 4] : Date.distantFuture
        let go = runner.state.withLock { state -> Bool in
            guard var record = state.jobs[job.name], !record.publishing else { return false }
            record.publishing = true
            record.republishAfter = republishAfter
            state.jobs[job.name] = record
            // Counted with the planners, so that `run()` returns only once the write ended: after `run()`, nothing
            // of the scheduler touches the store (its owner may close it, or remove its folder).
            state.planners += 1
            return true
        }
        guard go else { return }
        let description = JobDescription(
            name: job.name, schedule: job.scheduleDescription, nextDates: dates, replica: runner.replica,
            publishedAt: wallClock())
        let executor = runner.state.withLock { $0.executor }
        let task = Task(executorPreference: executor) {
            do {
                try await controlStore.publish(description)
            } catch {
                self.logger.warning(
                    "job store: cannot publish the job's next dates",
                    metadata: ["job": "\(job.name)", "error": "\(error)"])
            }
            let drained = self.runner.state.withLock { state -> Drained? in
                state.jobs[job.name]?.publishing = false
                state.planners -= 1
                return state.finishIfDone()
            }
            drained?.resume()
        }
        // Kept for shutdown to cancel; if shutdown began meanwhile, cancelled here (it found no task to cancel).
        let stopping = runner.state.withLock { state -> Bool in
            state.jobs[job.name]?.publishTask = task
            return state.phase != .running
        }
        if stopping { task.cancel() }
    }

    /// Changes one job's statistics under the lock.
    func update(_ name: String, _ change: (inout JobStats) -> Void) {
        runner.update(name, change)
    }
}

typealias LateDates = Plan.LateDates

/// What a job's planner remembers of abandoned dates from one planned date to the next (see
/// `JobScheduler.recoverAbandoned`).
struct AbandonedMemory {
    /// The abandoned dates handed to the catch-up policy and still reported.
    var handed: Set<Date> = []
    /// Those of them the policy did not run, settled with the coordinator and still reported (settled again).
    var dropped: Set<Date> = []
}

extension Date {
    /// The latest `Date` before this one (the next `Double` down), so that `(justBefore, x]` holds `x`.
    var justBefore: Date {
        Date(timeIntervalSince1970: timeIntervalSince1970.nextDown)
    }

}
