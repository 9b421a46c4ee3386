extension TempoTimer {
    /// Creates a timer and starts it: the first tick is due as `first` says (one interval from now by default).
    ///
    /// This is the form to reach for when porting `Timer.scheduledTimer`, `Repeater.every` or a started
    /// `DispatchSourceTimer`: the timer is running when it is returned, and keeps running without being held
    /// (see ``TempoTimer`` ownership; wrap it in a ``TimerHandle`` to cancel it on release). The initializers
    /// create an *idle* timer instead, for code that starts it later.
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
    ///   - handler: Called for each tick.
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
        handler: @escaping Handler
    ) throws(TempoError) -> TempoTimer {
        try TempoTimer(
            every: interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy,
            delivery: delivery, clock: clock, scheduler: scheduler, handler: handler
        ).started()
    }

    /// Creates a one-shot timer and starts it: its single tick is due `delay` from now.
    ///
    /// Do not call ``start()`` on the result: it does nothing while the tick is pending, but once the tick has
    /// fired it runs the timer again. (Code written when this returned an idle timer must drop its `start()`.)
    ///
    /// - Parameters:
    ///   - delay: The time from now to the tick.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock the delay is measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called once.
    /// - Returns: The timer, in the ``TimerState/running`` state; ``TempoTimer/start()`` on it does nothing,
    ///   and after its tick ``TempoTimer/start()`` runs it again.
    /// - Throws: ``TempoError`` when `delay` is not positive or too large, or `leeway` is invalid.
    @discardableResult
    public static func once(
        after delay: Duration,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping Handler
    ) throws(TempoError) -> TempoTimer {
        try every(
            delay, repeats: .once, leeway: leeway, delivery: delivery, clock: clock, scheduler: scheduler,
            handler: handler)
    }

    /// Starts the timer and returns it: the tail of every factory that returns a running timer.
    func started() -> TempoTimer {
        start()
        return self
    }
}
