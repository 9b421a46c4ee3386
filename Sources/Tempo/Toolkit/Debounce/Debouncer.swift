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
/// - A **zero delay** runs the action on the delivery's next turn instead of after a timer: calls made before
///   it gets to run replace the value and still run once (on ``SystemScheduler``, calls from one synchronous
///   stretch of code coalesce). On a `VirtualClock` the run happens before ``call(_:)`` returns, and with
///   ``TimerDelivery/immediate`` on the calling thread, so each call runs.
///
/// ## Thread safety
/// Every method may be called from any thread, including from the action. No user code runs under the lock.
public final class Debouncer<Value: Sendable>: Sendable {
    let state: TempoMutex<DebouncerStateMachine<Value>>
    let timer: TempoTimer
    let action: @Sendable (Value) -> Void
    let scheduler: any TimerScheduler

    /// Creates a debouncer with nothing pending.
    ///
    /// - Parameters:
    ///   - delay: How long the calls must stop before the action runs.
    ///   - leeway: How late the action may run to batch wakeups.
    ///   - delivery: Where the scheduled action runs (default a private serial queue).
    ///   - clock: The clock the delay is measured on.
    ///   - scheduler: The scheduler (default ``SystemScheduler/shared``; pass a `VirtualClock` in tests).
    ///   - action: Called with the last value of each burst. For a debouncer without a value (`Value` is `Void`), a
    ///     closure or function without parameters: `try Debouncer(delay: .milliseconds(300)) { search() }`.
    /// - Throws: ``TempoError`` when `delay` is negative, between zero and 1 ns, or above
    ///   292 years (`Int64.max` ns), or when `leeway` is invalid.
    public init(
        delay: Duration,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        action: @escaping @Sendable (Value) -> Void
    ) throws(TempoError) {
        try Self.validateDelay(delay)
        let relay = WeakRelay<Debouncer<Value>>()
        // A zero delay runs through a manual fire; the timer's own interval must still be valid.
        let timerDelay = delay == .zero ? Duration.nanoseconds(1) : delay
        let configuration = TempoTimer.Configuration(interval: timerDelay, repeats: .once, leeway: leeway, clock: clock)
        timer = try relay.timer(configuration, delivery: delivery, scheduler: scheduler) { debouncer, _ in
            debouncer.delayElapsed()
        }
        self.action = action
        self.scheduler = scheduler
        state = TempoMutex(DebouncerStateMachine(delay: delay, timerDelay: timerDelay))
        relay.object = self
    }

    deinit {
        timer.cancel()
    }

    /// The delay that the next ``call(_:)`` starts.
    public var delay: Duration { state.withLock { $0.delay } }

    /// Whether a value waits for its delay to pass.
    public var isPending: Bool { state.withLock { $0.isPending } }

    /// Changes the delay for later calls; a pending run keeps its deadline.
    ///
    /// - Parameter delay: The new delay; zero runs the action on the delivery's next turn (see the type).
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a negative delay, one between zero and
    ///   1 ns, or one above 292 years (`Int64.max` ns); the delay is then unchanged.
    public func setDelay(_ delay: Duration) throws(TempoError) {
        try Self.validateDelay(delay)
        state.withLock { $0.setDelay(delay) }
    }

    /// Records `value` and restarts the delay: the action runs with the last value once no call came for
    /// ``delay``.
    ///
    /// - Parameter value: The value to hand to the action.
    public func call(_ value: Value) {
        let now = scheduler.now(timer.clock)
        switch state.withLock({ $0.call(value, now: now) }) {
        case .fireOnNextTurn:
            // Run on the delivery's next turn: a manual tick, which a cancelled timer refuses until restarted
            // (the restart's own tick later finds nothing pending).
            if !timer.fire() {
                timer.start()
                timer.fire()
            }
        case .restartTimer(let interval):
            // `reset` starts the one-shot timer over from now; the delay was validated when it was set.
            timer.restartDelay(interval)
        }
    }

    /// Drops the pending value, if any; the action does not run for it.
    ///
    /// - Returns: Whether a value was pending.
    @discardableResult
    public func cancel() -> Bool {
        let taken = state.withLock { $0.take() }
        timer.cancel()
        return taken != nil
    }

    /// Runs the pending action now, on the calling thread, instead of when the delay passes.
    ///
    /// - Returns: Whether a value was pending (and the action ran).
    @discardableResult
    public func flush() -> Bool {
        guard let value = state.withLock({ $0.take() }) else { return false }
        timer.cancel()
        action(value)
        return true
    }

    /// Accepts zero, or a delay a timer can wait: at least 1 ns and at most 292 years (`Int64.max` ns).
    static func validateDelay(_ delay: Duration) throws(TempoError) {
        guard delay != .zero else { return }
        try TempoError.validateInterval(delay, name: "delay")
        guard delay >= .nanoseconds(1) else {
            throw TempoError(
                .invalidInterval,
                value: delay.exactDescription,
                message: "delay must be zero or at least 1 nanosecond, got \(delay.exactDescription)"
            )
        }
    }

    private func delayElapsed() {
        let now = scheduler.now(timer.clock)
        if let value = state.withLock({ $0.delayElapsed(now: now) }) {
            action(value)
        }
    }
}

extension Debouncer where Value == Void {
    /// Restarts the delay; the action runs once no call came for ``delay``.
    public func call() {
        call(())
    }
}
