public import Foundation
public import Logging
public import ServiceLifecycle
import Tempo
import TempoLocks
import TempoPlans

/// Runs async jobs on schedules, as a swift-service-lifecycle `Service`: add it to the app's `ServiceGroup` (a
/// Vapor or Hummingbird app's too) and it stops gracefully with the app.
///
/// ```swift
/// let scheduler = JobScheduler(logger: logger)
/// try scheduler.register("refresh-cache", .every(.seconds(5 * 60))) { context in
///     try await cache.refresh()
/// }
/// let group = ServiceGroup(services: [scheduler], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// Each job is a name, a ``JobSchedule``, ``JobOptions`` and an async body. `run()` starts every registered job's
/// planning; a job registered while the scheduler runs starts at once. A date's run starts on time unless the
/// job's overlap policy skips or queues it; a run's errors are logged, counted (``stats(for:)``) and handled by
/// its failure policy, and never stop other jobs.
///
/// Graceful shutdown (the `ServiceGroup`'s, or ``triggerGracefulShutdown()``): no new run or retry starts;
/// running runs get ``Configuration/gracePeriod`` on the scheduler's clock to end, then their tasks are cancelled,
/// naming the jobs still running in an error log; `run()` returns when the last run, and the last write of a job's
/// next dates to a ``JobControlStore``, has ended, or ``Configuration/abandonAfter`` after the cancellation, whichever
/// comes first. Shutdown cancels such a write in flight (a store's retries do not hold `run()`); after `run()`
/// returns, the scheduler writes nothing more to its store.
///
/// Runs and the jobs' planners are unstructured tasks that the scheduler tracks (not child tasks of `run()`), so a
/// body that ignores cancellation or blocks its thread can neither block other jobs nor keep `run()` from returning:
/// after `abandonAfter` its run is abandoned, an error log names its job, and `run()` returns while the body may still
/// be running. Not bounded: bodies that block every thread of the cooperative pool at once (one per core) stop every
/// task of the process, `run()` included, until one returns. The trade-off:
/// an abandoned body keeps running while the process lives (its job counts it in ``JobStats/running`` and, if it
/// ends, in its statistics and its cursor), and nothing waits for it any more; the process usually exits soon
/// after. Cancelling the task of `run()` cancels every run at once, then waits `abandonAfter` as above. Runs and
/// the scheduler's timers start on the task executor `run()` prefers (a `VirtualClock` run's in tests), else on the
/// global concurrent executor.
///
/// A run starts without an executor hop: at its date, its body runs on the thread of the job's planner until its
/// first suspension point, and the planner plans the job's next date after that. A body that computes for long
/// before its first `await` delays its own job's planning (a date that passes meanwhile is late, and its job's
/// ``JobOptions/CatchUp`` policy decides about it), never other jobs'.
///
/// Missed dates (downtime, a suspended process, a wall clock that jumped, a coordinator that could not decide a
/// date) all go to the job's catch-up policy; see ``JobOptions/CatchUp``.
///
/// Time: the scheduler waits on `clock` (pass a `VirtualClock` in tests, where every policy runs in virtual time)
/// and reads dates from `wallClock`; each wait for a date is converted to `clock` when it starts.
///
/// Thread-safety: every method may be called from any task; state lives behind one lock, and no job's body runs
/// while it is held.
public final class JobScheduler<C: Clock>: Service where C.Duration == Duration {
    /// Settings of the whole scheduler.
    public struct Configuration: Sendable {
        /// How long running runs may go on after graceful shutdown began before their tasks are cancelled
        /// (default 30 seconds); zero cancels them at once.
        public var gracePeriod: Duration
        /// How long runs cancelled at the end of the grace period may take to end before they are abandoned and
        /// `run()` returns without them (default 5 seconds); zero abandons them at once. See ``JobScheduler``.
        public var abandonAfter: Duration
        /// A seed for the retry jitter of every job (each job's generator is seeded from it and the job's name),
        /// for the same waits on every run; `nil` (default) for the system's generator.
        public var randomSeed: UInt64?

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - gracePeriod: Time given to running runs at shutdown (default 30 s; not negative).
        ///   - abandonAfter: Time given to cancelled runs to end before `run()` returns without them (default
        ///     5 s; not negative).
        ///   - randomSeed: The seed of the retry jitter (default none: the system's generator).
        public init(
            gracePeriod: Duration = .seconds(30), abandonAfter: Duration = .seconds(5), randomSeed: UInt64? = nil
        ) {
            self.gracePeriod = gracePeriod
            self.abandonAfter = abandonAfter
            self.randomSeed = randomSeed
        }
    }

    let configuration: Configuration
    let store: any JobStore
    let coordinator: any JobCoordinator
    let logger: Logger
    let clock: C
    let wallClock: @Sendable () -> Date
    /// The clock's instant when the scheduler was created: the state keeps due instants as the time since it.
    let origin: C.Instant
    /// The run path and the state, outside the generic type.
    let runner: JobRunner
    /// Whether the coordinator may report abandoned dates: not ``LocalJobCoordinator``, whose answer is always `[]`
    /// (a planner then skips the question on a date's path).
    let recoversAbandonedDates: Bool

    /// Creates a scheduler with no jobs.
    ///
    /// - Parameters:
    ///   - configuration: The grace period and the jitter's seed.
    ///   - store: Where cursors are kept (default: a new ``InMemoryJobStore``).
    ///   - coordinator: Asked before each run whether this process runs the date (default: a
    ///     ``LocalJobCoordinator``, which grants every date).
    ///   - logger: The logger for runs, failures and shutdown; each run's ``JobContext/logger`` adds the job's
    ///     metadata.
    ///   - wallClock: The source of dates for plans and cursors (default `Date.init`).
    ///   - clock: The clock to wait on.
    ///
    /// A negative `configuration.gracePeriod` or `configuration.abandonAfter`, or one past 100 years, is reported by
    /// ``run()``, which throws ``JobError`` with ``JobError/Code/invalidOptions`` naming it before any job starts.
    public init(
        configuration: Configuration = Configuration(),
        store: any JobStore = InMemoryJobStore(),
        coordinator: any JobCoordinator = LocalJobCoordinator(),
        logger: Logger,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        clock: C
    ) {
        self.configuration = configuration
        self.store = store
        self.coordinator = coordinator
        self.recoversAbandonedDates = !(coordinator is LocalJobCoordinator)
        self.logger = logger
        self.wallClock = wallClock
        self.clock = clock
        let origin = clock.now
        self.origin = origin
        self.runner = JobRunner(
            store: store, coordinator: coordinator, logger: logger, wallClock: wallClock,
            elapsed: { origin.duration(to: clock.now) }, sleep: { try await clock.sleep(for: $0) })
    }

    /// Registers a job; it starts when ``run()`` does, or at once if the scheduler is running.
    ///
    /// A name is registered once: a second registration of a name throws ``JobError/Code/duplicateName`` and
    /// leaves the first job as it was (remove-and-replace is not offered, so a job's cursor and statistics always
    /// belong to one body).
    ///
    /// - Parameters:
    ///   - name: The job's name, unique in the scheduler and the key of its cursor; not empty.
    ///   - schedule: When it runs.
    ///   - options: Its overlap, failure, timeout, catch-up, guarantee and spread (default ``JobOptions/init(overlap:failure:timeout:catchUp:guarantee:spread:)``).
    ///   - fileID: Where the job is registered; leave the default. With `line`, the site of the job's label: the
    ///     name is the job's label (`TimerLabel`), which names its pending waits in TempoTesting's armed-timer check,
    ///     as the `job` metadata names it in the scheduler's log lines.
    ///   - line: The line the job is registered on; leave the default.
    ///   - body: The work, given the run's context; runs in a task of its own that the scheduler tracks.
    /// - Throws: ``JobError`` naming the value: ``JobError/Code/emptyName``, ``JobError/Code/duplicateName``,
    ///   ``JobError/Code/invalidSchedule``, ``JobError/Code/invalidRetryPolicy``,
    ///   ``JobError/Code/invalidOptions``, or ``JobError/Code/schedulerStopped`` after shutdown began. Nothing
    ///   changes when it throws.
    public func register(
        _ name: String,
        _ schedule: JobSchedule,
        options: JobOptions = JobOptions(),
        fileID: String = #fileID,
        line: Int = #line,
        body: @escaping @Sendable (JobContext) async throws -> Void
    ) throws(JobError) {
        let definition = try JobDefinition(
            name: name, schedule: schedule, options: options, seed: configuration.randomSeed,
            label: TimerLabel(name, fileID: fileID, line: line), body: body)
        let continuation = try runner.state.withLock { state throws(JobError) in
            try state.add(definition)
        }
        continuation?.yield(definition)
    }

    /// What the job named `name` did so far, or `nil` if no such job is registered.
    ///
    /// - Parameter name: The job's name.
    /// - Returns: A snapshot of its statistics.
    public func stats(for name: String) -> JobStats? {
        runner.state.withLock { $0.jobs[name]?.stats }
    }

    /// The names of the registered jobs, in the order they were registered.
    public var jobNames: [String] {
        runner.state.withLock { $0.order }
    }

    /// Begins graceful shutdown, as a `ServiceGroup` does: no new run starts, running runs get the grace period,
    /// then cancellation; ``run()`` returns when the last has ended or was abandoned. Before `run()`, it makes `run()` return at
    /// once. Calling it again does nothing.
    public func triggerGracefulShutdown() {
        beginShutdown()
    }
}
