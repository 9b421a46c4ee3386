import Synchronization
import TempoLocks

/// Runs an action once calls stop for a delay: search-as-you-type, saving a document after the last edit.
///
/// ```swift
/// let search = try Debouncer<String>(delay: .milliseconds(300)) { query in runSearch(query) }
/// search.call("s"); search.call("sw"); search.call("swift")   // one search, for "swift", 300 ms later
/// ```
///
/// ## Timing
/// - ``call(_:)`` records its value and (re)starts the delay: the action runs once, with the *last* value,
///   `delay` after the last call of a burst. Calls after that start a new burst.
/// - ``setDelay(_:)`` applies from the next call; a pending run keeps its deadline.
/// - ``flush()`` runs a pending action at once on the calling thread and cancels the scheduled run;
///   ``cancel()`` drops it. Either way the burst's action runs at most once.
/// - The scheduled run happens on the delivery (a private serial queue by default); scheduled runs never
///   overlap one another.
///
/// ## Thread safety
/// Every method may be called from any thread, including from the action. No user code runs under the lock.
public final class Debouncer<Value: Sendable>: Sendable {
    struct State {
        var pending: Value?
        var hasPending = false
        /// The earliest instant the pending value may run: `delay` after the last call.
        var deadline = TimerInstant.zero
        var delay: Duration
        var timerDelay: Duration
    }

    let state: TempoMutex<State>
    let timer: TempoTimer
    let action: @Sendable (Value) -> Void
    let scheduler: any TimerScheduler

    /// Creates a debouncer with nothing pending.
    ///
    /// - Parameters:
    ///   - delay: How long the calls must stop before the action runs.
    ///   - leeway: How late the action may run to batch wakeups.
    ///   - clock: The clock the delay is measured on.
    ///   - delivery: Where the scheduled action runs (default a private serial queue).
    ///   - scheduler: The scheduler (default ``SystemScheduler/shared``; pass a `VirtualClock` in tests).
    ///   - action: Called with the last value of each burst.
    /// - Throws: ``TempoError`` when `delay` or `leeway` is invalid.
    public init(
        delay: Duration,
        leeway: Duration = .zero,
        clock: TimerClock = .monotonic,
        delivery: TimerDelivery = .privateQueue,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        action: @escaping @Sendable (Value) -> Void
    ) throws(TempoError) {
        let relay = WeakRelay<Debouncer<Value>>()
        timer = try TempoTimer(
            every: delay,
            repeats: .once,
            leeway: leeway,
            delivery: delivery,
            clock: clock,
            scheduler: scheduler
        ) { _ in
            relay.object?.delayElapsed()
        }
        self.action = action
        self.scheduler = scheduler
        state = TempoMutex(State(delay: delay, timerDelay: delay))
        relay.object = self
    }

    deinit {
        timer.cancel()
    }

    /// The delay that the next ``call(_:)`` starts.
    public var delay: Duration { state.withLock { $0.delay } }

    /// Whether a value waits for its delay to pass.
    public var isPending: Bool { state.withLock { $0.hasPending } }

    /// Changes the delay for later calls; a pending run keeps its deadline.
    ///
    /// - Parameter delay: The new delay.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a delay that is not positive.
    public func setDelay(_ delay: Duration) throws(TempoError) {
        try TempoError.validateInterval(delay, name: "delay")
        state.withLock { $0.delay = delay }
    }

    /// Records `value` and restarts the delay: the action runs with the last value once no call came for
    /// ``delay``.
    ///
    /// - Parameter value: The value to hand to the action.
    public func call(_ value: Value) {
        let now = scheduler.now(timer.clock)
        let newInterval = state.withLock { state -> Duration? in
            state.pending = value
            state.hasPending = true
            state.deadline = now + state.delay
            guard state.delay != state.timerDelay else { return nil }
            state.timerDelay = state.delay
            return state.delay
        }
        // `reset` starts the one-shot timer over from now; the delay was validated when it was set.
        try? timer.reset(interval: newInterval)
    }

    /// Drops the pending value, if any; the action does not run for it.
    ///
    /// - Returns: Whether a value was pending.
    @discardableResult
    public func cancel() -> Bool {
        let taken = take(ignoringDeadline: true)
        timer.cancel()
        return taken != nil
    }

    /// Runs the pending action now, on the calling thread, instead of when the delay passes.
    ///
    /// - Returns: Whether a value was pending (and the action ran).
    @discardableResult
    public func flush() -> Bool {
        guard let value = take(ignoringDeadline: true) else { return false }
        timer.cancel()
        action(value.value)
        return true
    }

    private func delayElapsed() {
        if let value = take(ignoringDeadline: false) {
            action(value.value)
        }
    }

    /// Takes the pending value; a scheduled run takes it only once its deadline has passed (a call that came
    /// in meanwhile moved the deadline, and the timer was reset for it).
    private func take(ignoringDeadline: Bool) -> (value: Value, Void)? {
        let now = ignoringDeadline ? nil : scheduler.now(timer.clock)
        return state.withLock { state in
            guard state.hasPending, let value = state.pending else { return nil }
            if let now, now < state.deadline { return nil }
            state.pending = nil
            state.hasPending = false
            return (value, ())
        }
    }
}

extension Debouncer where Value == Void {
    /// Creates a debouncer for an action without a value.
    ///
    /// - Parameters:
    ///   - delay: How long the calls must stop before the action runs.
    ///   - leeway: How late the action may run to batch wakeups.
    ///   - clock: The clock the delay is measured on.
    ///   - delivery: Where the scheduled action runs.
    ///   - scheduler: The scheduler.
    ///   - action: Called once per burst.
    /// - Throws: ``TempoError`` when `delay` or `leeway` is invalid.
    public convenience init(
        delay: Duration,
        leeway: Duration = .zero,
        clock: TimerClock = .monotonic,
        delivery: TimerDelivery = .privateQueue,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        action: @escaping @Sendable () -> Void
    ) throws(TempoError) {
        try self.init(
            delay: delay,
            leeway: leeway,
            clock: clock,
            delivery: delivery,
            scheduler: scheduler,
            action: { (_: Void) in action() }
        )
    }

    /// Restarts the delay; the action runs once no call came for ``delay``.
    public func call() {
        call(())
    }
}
