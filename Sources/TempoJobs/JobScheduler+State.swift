import Foundation

// The scheduler's bookkeeping, outside the generic `JobScheduler<C>`: these types do not depend on the clock, and as
// top-level types their code is compiled for them once, not run unspecialized through the clock's generic metadata
// (before this change, `tempo-jobs-demo bench` with timestamps around it measured about 14 µs per run inside the
// lock's `admit`, at a load of 6).

/// A run to start: the job, the date it stands for and the instant it was due on the scheduler's clock (as the
/// time since the scheduler's ``JobScheduler/origin``).
struct RunRequest: Sendable {
    let job: JobDefinition
    let date: Date
    let due: Duration
    let id: UInt64
    /// Whether an operator's run-now request started it (``JobControlStore/requestRun(of:)``), not the schedule.
    var isRunNow = false
}

/// What a planner does with a date that came.
enum Admission {
    case start(RunRequest)
    case skipped(running: Int)
    case queued
    /// The job is paused: the date does not run (counted).
    case paused
    /// The job or the scheduler stopped: plan no more.
    case stop
}

enum Phase {
    case idle
    case running
    /// Shutdown began: no new run; running runs have the grace period.
    case draining
    /// The grace period ended: the runs still going are cancelled; `run()` waits `abandonAfter` for them.
    case cancelling
    case finished
}

/// A run going: its job and its task (set just after the task starts).
struct RunningRun {
    let job: String
    var task: Task<Void, Never>?
}

/// What ends the wait of `run()` for its runs: the waiter to resume and the timer to cancel.
struct Drained {
    let waiter: CheckedContinuation<Void, Never>?
    let timer: Task<Void, Never>?

    func resume() {
        timer?.cancel()
        waiter?.resume()
    }
}

/// One job's record: its definition, statistics, queued date and jitter generator.
struct JobRecord {
    let definition: JobDefinition
    var stats = JobStats()
    var queued: RunRequest?
    var random: JobRandom
    /// The latest planned date whose claim the coordinator decided (granted or refused).
    var lastDecided: Date?
    /// A span of dates the coordinator could not decide (it threw), not yet handed to the catch-up policy. Dates in
    /// the span that were not claimed at all (skipped by the overlap policy while a claim hung on the database) are
    /// in it too; dates of it that ran are refused when claimed again.
    var outage: Outage?
    /// Run-now dates of the store's control not started here yet, oldest first (they start when the overlap policy
    /// lets a run start).
    var runNowPending: [Date] = []
    /// Run-now dates this scheduler claimed already (won or not), so that it tries each once.
    var runNowTried: Set<Date> = []
    /// When the job's state last changed in the store's control (a resume's date bounds the catch-up at start).
    var controlChangedAt: Date?
    /// The date after which the planner publishes the job's next dates again; `nil` before the first publish.
    var republishAfter: Date?
    /// Whether a publish of the job is in flight (one at a time).
    var publishing = false
    /// The task of the publish in flight (or of the last one), cancelled when shutdown begins.
    var publishTask: Task<Void, Never>?
}

/// A span of a job's dates that its coordinator could not decide (see ``JobRecord/outage``).
struct Outage {
    /// The span starts after this date: the last date decided before the outage.
    var after: Date
    /// The span ends with this date: the latest date not decided, or skipped by the overlap policy while the outage
    /// went on (a run whose claim hung on the database was still going).
    var through: Date
    /// Whether a claim was decided again since: the planner hands the span to the catch-up policy at its next date.
    var isOver = false

    /// Records a date the overlap policy skipped: during an outage, it joins the span.
    static func skipped(_ date: Date, in record: inout JobRecord) {
        guard var outage = record.outage, !outage.isOver else { return }
        outage.through = max(outage.through, date)
        record.outage = outage
    }

    /// Records a decided claim of `date`: the latest decided date, and the end of an outage.
    static func decided(_ date: Date, in record: inout JobRecord) {
        record.lastDecided = max(record.lastDecided ?? date, date)
        if record.outage != nil, date > record.outage?.after ?? date { record.outage?.isOver = true }
    }
}

/// What waits on the scheduler's state.
enum WaitReason {
    /// A planner waits until no run of the job is going (fixed delay, catch-up).
    case idle(String)
    /// A planner waits for shutdown, to stop planning.
    case stop
    /// A planner waits for the first read of the store's control (a paused job's dates must not run before it).
    case control
}

/// The scheduler's state, behind its lock. Methods return what to do once the lock is released.
struct SchedulerState {
    var phase = Phase.idle
    /// Whether `run()` was called (a shutdown before it makes it return at once).
    var hasRun = false
    var jobs: [String: JobRecord] = [:]
    var order: [String] = []
    /// Jobs registered while the scheduler runs, for the planners' task group in `run()`.
    var newJobs: AsyncStream<JobDefinition>.Continuation?
    /// The task executor `run()` prefers (a `VirtualClock` run's, in tests), on which runs and timers start.
    var executor: (any TaskExecutor)?
    /// The planners going (one per job until its schedule ends or shutdown), the task that follows the store's
    /// control, and the writes of a job's next dates to the store in flight: `run()` waits for them with the runs.
    var planners = 0
    /// The runs going, by id. Their tasks are unstructured, so that `run()` can return without them.
    var runs: [UInt64: RunningRun] = [:]
    /// `run()` waiting, after planning ended, for the last run to end (or to be abandoned).
    var drainWaiter: CheckedContinuation<Void, Never>?
    /// The grace period's timer, then the abandon timer.
    var timer: Task<Void, Never>?
    var nextID: UInt64 = 0
    /// Planners waiting for a job's runs to end (fixed delay, catch-up): few, so a run's end scans them.
    var idleWaiters: [UInt64: (job: String, continuation: CheckedContinuation<Void, Never>)] = [:]
    /// Planners waiting for shutdown: one per job, taken all at once.
    var stopWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    /// Whether the store's control was read once (always, for a store that is not a ``JobControlStore``).
    var controlRead = false
    /// Planners waiting for the first read of the control.
    var controlWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]

    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// Adds a job; returns the planners' stream when planning must start at once.
    mutating func add(_ definition: JobDefinition) throws(JobError) -> AsyncStream<JobDefinition>.Continuation? {
        let name = definition.name
        guard jobs[name] == nil else {
            throw JobError(.duplicateName, job: name, message: "a job named \"\(name)\" is already registered")
        }
        switch phase {
        case .draining, .cancelling, .finished:
            throw JobError(
                .schedulerStopped, job: name,
                message: "cannot register job \"\(name)\": the scheduler is shutting down or has stopped")
        case .idle, .running:
            break
        }
        jobs[name] = JobRecord(definition: definition, random: JobRandom(seed: definition.seed))
        order.append(name)
        guard phase == .running else { return nil }
        return newJobs
    }

    /// Decides about a date of `job` that came, due at `due`.
    mutating func admit(_ job: JobDefinition, date: Date, due: Duration) -> Admission {
        guard phase == .running, var record = jobs[job.name], !record.stats.isStopped else { return .stop }
        defer { jobs[job.name] = record }
        guard !record.stats.isPaused else {
            record.stats.skippedWhilePaused += 1
            return .paused
        }
        let running = record.stats.running
        let request = RunRequest(job: job, date: date, due: due, id: makeID())
        switch job.options.overlap.kind {
        case .skip where running >= 1:
            record.stats.skipped += 1
            Outage.skipped(date, in: &record)
            return .skipped(running: running)
        case .queueOne where running >= 1:
            guard record.queued == nil else {
                record.stats.skipped += 1
                Outage.skipped(date, in: &record)
                return .skipped(running: running)
            }
            record.queued = request
            return .queued
        case .concurrent(let limit) where running >= limit:
            record.stats.skipped += 1
            Outage.skipped(date, in: &record)
            return .skipped(running: running)
        default:
            start(request, in: &record)
            return .start(request)
        }
    }

    private mutating func start(_ request: RunRequest, in record: inout JobRecord) {
        record.stats.running += 1
        record.stats.started += 1
        runs[request.id] = RunningRun(job: request.job.name)
    }

    /// Keeps the task of run `id`; returns whether to cancel it at once (the grace period ended meanwhile).
    mutating func attach(_ task: Task<Void, Never>, to id: UInt64) -> Bool {
        guard runs[id] != nil else { return false }  // it ended already
        runs[id]?.task = task
        return phase == .cancelling || phase == .finished
    }

    /// A run ended; returns the queued run to start, the waiters to resume and whether `run()` may end.
    mutating func runEnded(
        _ request: RunRequest, now: () -> Duration
    ) -> (next: RunRequest?, resume: [CheckedContinuation<Void, Never>], drained: Drained?) {
        let name = request.job.name
        runs[request.id] = nil
        var next: RunRequest?
        if var record = jobs[name] {
            record.stats.running -= 1
            if let queued = record.queued {
                record.queued = nil
                if phase == .running && !record.stats.isStopped && !record.stats.isPaused {
                    start(queued, in: &record)
                    next = queued
                } else if record.stats.isPaused {
                    record.stats.skippedWhilePaused += 1
                } else {
                    record.stats.skipped += 1
                }
            }
            if next == nil, !record.runNowPending.isEmpty { next = startRunNow(in: &record, due: now()) }
            jobs[name] = record
        }
        let resume = jobs[name]?.stats.running == 0 ? takeWaiters(idle: name) : []
        return (next, resume, finishIfDone())
    }

    mutating func takeWaiters(idle name: String) -> [CheckedContinuation<Void, Never>] {
        guard !idleWaiters.isEmpty else { return [] }
        var resumed: [CheckedContinuation<Void, Never>] = []
        for (id, waiter) in idleWaiters where waiter.job == name {
            resumed.append(waiter.continuation)
            idleWaiters[id] = nil
        }
        return resumed
    }

    mutating func takeStopWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { (stopWaiters, controlWaiters) = ([:], [:]) }
        return Array(stopWaiters.values) + Array(controlWaiters.values)
    }

    /// Registers a waiter for `reason`.
    mutating func addWaiter(_ id: UInt64, _ reason: WaitReason, _ continuation: CheckedContinuation<Void, Never>) {
        switch reason {
        case .idle(let job): idleWaiters[id] = (job, continuation)
        case .stop: stopWaiters[id] = continuation
        case .control: controlWaiters[id] = continuation
        }
    }

    /// Removes the waiter `id` (its task was cancelled); returns it to resume.
    mutating func removeWaiter(_ id: UInt64) -> CheckedContinuation<Void, Never>? {
        idleWaiters.removeValue(forKey: id)?.continuation ?? stopWaiters.removeValue(forKey: id)
            ?? controlWaiters.removeValue(forKey: id)
    }

    /// Applies the store's control: each registered job's state, and its run-now requests not tried here (started
    /// as far as the overlap policy lets them; the others when a run ends). Returns the runs to start and the
    /// planners waiting for the first read.
    mutating func apply(
        _ controls: [String: JobControl], due: Duration
    ) -> (start: [RunRequest], resume: [CheckedContinuation<Void, Never>]) {
        var start: [RunRequest] = []
        for name in order {
            guard var record = jobs[name] else { continue }
            let control = controls[name] ?? JobControl()
            record.stats.isPaused = control.state == .paused
            record.controlChangedAt = control.changedAt
            let requests = Set(control.runRequests)
            record.runNowTried.formIntersection(requests)
            record.runNowPending = control.runRequests.filter { !record.runNowTried.contains($0) }
            while let request = startRunNow(in: &record, due: due) { start.append(request) }
            jobs[name] = record
        }
        controlRead = true
        defer { controlWaiters = [:] }
        return (start, Array(controlWaiters.values))
    }

    /// Starts the oldest pending run-now request of the job when the scheduler runs and the overlap policy lets a
    /// run start now; `nil` otherwise.
    private mutating func startRunNow(in record: inout JobRecord, due: Duration) -> RunRequest? {
        guard phase == .running, !record.stats.isStopped, let date = record.runNowPending.first else { return nil }
        let running = record.stats.running
        switch record.definition.options.overlap.kind {
        case .skip, .queueOne: guard running == 0 else { return nil }
        case .concurrent(let limit): guard running < limit else { return nil }
        }
        record.runNowPending.removeFirst()
        record.runNowTried.insert(date)
        var request = RunRequest(job: record.definition, date: date, due: due, id: makeID())
        request.isRunNow = true
        record.stats.runNow += 1
        start(request, in: &record)
        return request
    }

    /// Whether a wait for `reason` is over already.
    func isReady(_ reason: WaitReason) -> Bool {
        switch reason {
        case .idle(let name): (jobs[name]?.stats.running ?? 0) == 0
        case .stop: phase != .running
        case .control: controlRead || phase != .running
        }
    }

    /// Ends the shutdown when no run is left: returns what to resume. A run may end before `run()` waits: the
    /// phase then tells `run()` not to.
    mutating func finishIfDone() -> Drained? {
        guard phase == .draining || phase == .cancelling, runs.isEmpty, planners == 0 else { return nil }
        return finish()
    }

    /// Ends the shutdown whatever still runs (the abandon timer fired).
    mutating func finish() -> Drained {
        phase = .finished
        defer { (drainWaiter, timer) = (nil, nil) }
        return Drained(waiter: drainWaiter, timer: timer)
    }

    /// The names of the jobs with runs going, sorted.
    var runningJobs: [String] {
        Set(runs.values.map(\.job)).sorted()
    }
}
