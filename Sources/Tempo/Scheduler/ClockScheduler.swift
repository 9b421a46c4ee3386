import TempoLocks

/// A scheduler whose time is any `Clock` with `Swift.Duration` durations, so every Tempo type runs on a clock
/// that an app injects: `ContinuousClock`, `SuspendingClock`, swift-clocks' `TestClock` and `ImmediateClock`,
/// or the `any Clock<Duration>` of swift-dependencies.
///
/// ```swift
/// let scheduler = ClockScheduler(clock: clock)          // e.g. `@Dependency(\.continuousClock) var clock`
/// let timer = try TempoTimer(.every(.seconds(1)), scheduler: scheduler) { tick in refresh() }
/// timer.start()
/// ```
///
/// ## Time
/// The three ``TimerClock``s all read the one clock: ``TimerClock/monotonic`` and ``TimerClock/continuous`` are
/// the time elapsed on it since the scheduler was created (both start at ``TimerInstant/zero``), and
/// ``TimerClock/wall`` is that elapsed time added to ``wallClockStart``. So a deadline on any of them is a
/// deadline on the clock, and all pending actions live in one queue: equal deadlines run in the order they
/// were scheduled whatever ``TimerClock`` they were armed on. The wall clock does not follow changes to the
/// system's calendar clock, and ``TimerClock/continuous`` keeps counting through sleep only if the injected
/// clock does.
///
/// ## Running actions
/// One task at a time sleeps on the clock (`sleep(until:tolerance:)`) until the earliest pending deadline, with
/// that action's leeway as the tolerance. When it wakes, it reads the clock and runs, one after the other and
/// outside the scheduler's lock, every action whose deadline is not after the clock's `now`, in deadline order
/// (FIFO among equal deadlines), including actions those actions schedule that are already due; then a new task
/// sleeps until the next deadline. Scheduling an earlier deadline cancels the sleeping task and starts another.
/// Nothing runs (and no task exists) while nothing is pending: cancelling the last pending action cancels the
/// sleeping task.
///
/// - **Never early**: an action runs only once the clock's `now` has reached its deadline, whatever the sleep
///   did, so a clock that wakes early (or a test clock moved backwards) only delays it.
/// - **Late**: the scheduler aims at deadline + leeway but runs as late as the clock wakes it. On a test clock,
///   actions run only after the test advances the clock (`TestClock.advance(by:)`) and the sleeping task gets to
///   run, so wait for the effect you expect rather than asserting right after advancing. On `ImmediateClock`
///   every sleep returns at once with the clock moved to the deadline, so timers run back to back.
/// - **Cancel**: ``cancel(_:)`` removes a pending action; once it returns the action does not start, unless the
///   scheduler's task had already taken it to run (a cancel racing with the deadline on another thread).
/// - **Errors of the clock**: a sleep that throws for another reason than being replaced (a test clock torn
///   down) leaves the pending actions in place; the next ``schedule(at:leeway:clock:_:)`` sleeps again.
///
/// ## Delivery
/// Delivery work goes to the queue asynchronously (as on ``SystemScheduler``), and work for no queue runs at once
/// on the calling thread, so a timer with ``TimerDelivery/immediate`` delivery runs its handler on the
/// scheduler's task, right after the clock reached the deadline.
///
/// ## Lifetime
/// A pending action keeps the scheduler alive (its task holds it while it sleeps), and a running ``TempoTimer``
/// keeps its scheduler: cancel timers that should stop, as with ``SystemScheduler``. When nothing is pending no
/// task exists and nothing is retained.
///
/// Thread-safety: every method may be called from any thread or task, including from inside an action.
public final class ClockScheduler<C: Clock>: TimerScheduler where C.Duration == Duration {
    /// The clock that provides time and sleeps.
    public let clock: C
    /// The clock's instant when the scheduler was created: ``TimerInstant/zero`` of the monotonic clock.
    public let origin: C.Instant
    /// The wall-clock instant that corresponds to ``origin``.
    public let wallClockStart: TimerInstant

    let state: TempoMutex<ClockSchedulerState<C>>

    /// Creates a scheduler on `clock`.
    ///
    /// - Parameters:
    ///   - clock: The clock to read and sleep on.
    ///   - wallClockStart: What ``TimerClock/wall`` reads now; `nil` (the default) reads the system's calendar
    ///     clock once. Pass a fixed instant in tests so that wall-clock deadlines are reproducible.
    public init(clock: C, wallClockStart: TimerInstant? = nil) {
        self.clock = clock
        self.origin = clock.now
        self.wallClockStart = wallClockStart ?? PlatformClock.now(.wall)
        self.state = TempoMutex(ClockSchedulerState())
    }

    /// The time elapsed on the clock since ``origin``: the queue's time line.
    func elapsed() -> TimerInstant {
        TimerInstant(offset: origin.duration(to: clock.now))
    }

    /// Where `instant` of `timerClock` lies on the queue's time line.
    func elapsed(of instant: TimerInstant, on timerClock: TimerClock) -> TimerInstant {
        switch timerClock {
        case .monotonic, .continuous: instant
        case .wall: TimerInstant(offset: instant.offset - wallClockStart.offset)
        }
    }

    // MARK: TimerScheduler

    /// The clock's time since ``origin`` (monotonic and continuous), or that time after ``wallClockStart`` (wall).
    ///
    /// - Parameter clock: The clock to read.
    /// - Returns: The current instant of `clock`.
    public func now(_ clock: TimerClock) -> TimerInstant {
        let elapsed = elapsed()
        switch clock {
        case .monotonic, .continuous: return elapsed
        case .wall: return wallClockStart + elapsed.offset
        }
    }

    /// Schedules `action` to run once the clock reaches `deadline`; see ``ClockScheduler`` for how it runs.
    ///
    /// - Parameters:
    ///   - deadline: The earliest instant the action may run.
    ///   - leeway: Passed to the clock as the sleep's tolerance.
    ///   - clock: The ``TimerClock`` `deadline` is measured on.
    ///   - action: The work.
    /// - Returns: A handle for ``cancel(_:)``.
    /// - Complexity: O(log n) in the number of pending actions.
    public func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        let due = elapsed(of: deadline, on: clock)
        let (handle, replaced) = state.withLock { state in
            let handle = state.insert(deadline: due, leeway: leeway, action: action)
            return (handle, state.rearmIfNeeded(self))
        }
        replaced?.cancel()
        return handle
    }

    /// Cancels a pending action; stale handles are ignored.
    ///
    /// - Parameter action: The handle ``schedule(at:leeway:clock:_:)`` returned.
    public func cancel(_ action: ScheduledAction) {
        let (removed, idle) = state.withLock { state in
            (state.queue.remove(id: action.id, slot: action.slot), state.disarmIfIdle())
        }
        withExtendedLifetime(removed) {}
        idle?.cancel()
    }

    /// The number of scheduled actions that have neither run nor been cancelled, over all ``TimerClock``s.
    public var pendingCount: Int {
        state.withLock { $0.queue.count }
    }

    // MARK: Driving

    /// The body of a wake task: sleeps until `deadline`, then runs what is due if it is still the current task.
    func wake(generation: UInt64, until deadline: TimerInstant, tolerance: Duration) async {
        let instant = origin.advanced(by: deadline.offset)
        do {
            // A deadline already reached is not slept on: some test clocks suspend a sleep until exactly `now`.
            if elapsed() < deadline {
                try await clock.sleep(until: instant, tolerance: tolerance == .zero ? nil : tolerance)
            }
        } catch {
            // Replaced by an earlier deadline (cancelled), or the clock gave up: in both cases stop, and if this task
            // is still the current one, forget it so that the next schedule sleeps again.
            state.withLock { $0.forget(generation: generation) }
            return
        }
        guard state.withLock({ $0.beginRunning(generation: generation) }) else { return }
        runDue()
    }

    /// Runs every due action, one at a time outside the lock, then sleeps until the next deadline.
    private func runDue() {
        while true {
            let now = elapsed()
            let (work, replaced) = state.withLock { state -> (DeadlineQueue.Work?, Task<Void, Never>?) in
                if let due = state.queue.popFirst(notAfter: now) { return (due.work, nil) }
                state.running = false
                return (nil, state.rearmIfNeeded(self))
            }
            guard let work else {
                replaced?.cancel()
                return
            }
            work.run()
        }
    }
}
