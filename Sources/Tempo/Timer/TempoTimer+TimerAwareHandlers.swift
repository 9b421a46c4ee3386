extension TempoTimer {
    /// A closure called for each tick with the timer that ticked, so it can reset, pause or cancel it.
    ///
    /// The timer is passed at call time, not captured, so a handler that uses it creates no retain cycle.
    public typealias TimerAwareHandler = @Sendable (TempoTimer, TimerTick) -> Void

    /// Creates an idle timer whose handler receives the timer on each tick; call ``start()``.
    ///
    /// ```swift
    /// let poll = try TempoTimer(every: .seconds(5)) { timer, _ in
    ///     if inbox.isEmpty { timer.cancel() }  // no capture of `poll`, no retain cycle
    /// }
    /// ```
    ///
    /// The timer holds its handlers, and the handler holds the timer only while it runs, so releasing every
    /// reference to an idle, paused, finished or cancelled timer frees it. Timing is that of the initializer
    /// whose handler takes only the tick.
    ///
    /// - Parameters:
    ///   - interval: The period between ticks; for ``TimerRepeats/once``, the delay before the tick.
    ///   - repeats: How many ticks.
    ///   - first: When the first tick is due.
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock deadlines are measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called with the timer and the tick.
    /// - Throws: ``TempoError`` when the schedule is invalid.
    public convenience init(
        every interval: Duration,
        repeats: TimerRepeats = .forever,
        first: FirstTick = .afterInterval,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping TimerAwareHandler
    ) throws(TempoError) {
        try self.init(
            every: interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy,
            delivery: delivery, clock: clock, scheduler: scheduler, handler: nil)
        addObserver(handler)
    }

    /// Adds a handler that receives the timer on each tick, after the existing handlers.
    ///
    /// The timer is held weakly by the handler and strongly only while a tick is delivered, so a handler that
    /// resets or cancels its own timer creates no retain cycle.
    ///
    /// - Parameter handler: Called with the timer and the tick.
    /// - Returns: A token for ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ handler: @escaping TimerAwareHandler) -> TimerObservation {
        // While a tick is delivered the drain holds the timer, so the weak reference is always alive there.
        addObserver { [weak self] tick in
            if let self { handler(self, tick) }
        }
    }

    /// Creates a timer whose handler receives the timer, and starts it; timing as for the form whose handler
    /// takes only the tick.
    ///
    /// ```swift
    /// try TempoTimer.every(.seconds(1)) { timer, tick in
    ///     if tick.index == 10 { timer.cancel() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The period between ticks.
    ///   - repeats: How many ticks (default forever).
    ///   - first: When the first tick is due (default one interval from now).
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock deadlines are measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called with the timer and the tick.
    /// - Returns: The timer, in the ``TimerState/running`` state.
    /// - Throws: ``TempoError`` when the schedule is invalid; nothing is started then.
    @discardableResult
    public static func every(
        _ interval: Duration,
        repeats: TimerRepeats = .forever,
        first: FirstTick = .afterInterval,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping TimerAwareHandler
    ) throws(TempoError) -> TempoTimer {
        try TempoTimer(
            every: interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy,
            delivery: delivery, clock: clock, scheduler: scheduler, handler: handler
        ).started()
    }

    /// Creates a one-shot timer whose handler receives the timer, and starts it: its tick is due `delay` from now.
    ///
    /// A handler may call ``reset(interval:)`` on the timer it receives to run again (Repeat's
    /// `{ timer in timer.reset(nil) }`).
    ///
    /// - Parameters:
    ///   - delay: The time from now to the tick.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock the delay is measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called once with the timer and the tick.
    /// - Returns: The timer, in the ``TimerState/running`` state.
    /// - Throws: ``TempoError`` when `delay` is not positive or too large, or `leeway` is invalid.
    @discardableResult
    public static func once(
        after delay: Duration,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping TimerAwareHandler
    ) throws(TempoError) -> TempoTimer {
        try every(
            delay, repeats: .once, leeway: leeway, delivery: delivery, clock: clock, scheduler: scheduler,
            handler: handler)
    }
}
