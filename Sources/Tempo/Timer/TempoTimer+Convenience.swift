extension TempoTimer {
    /// Creates an idle timer that holds `target` weakly and passes it to `handler` on each tick; call ``start()``.
    ///
    /// The timer never keeps the target alive. On the first tick after the target was deallocated the
    /// timer cancels itself instead of calling `handler`, so an owner needs no cleanup code.
    ///
    /// - Parameters:
    ///   - interval: The period between ticks.
    ///   - target: The object handed to `handler`, held weakly.
    ///   - repeats: How many ticks.
    ///   - first: When the first tick is due.
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock deadlines are measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called with the live target and the tick.
    /// - Throws: ``TempoError`` when the schedule is invalid.
    public convenience init<Target: AnyObject & Sendable>(
        every interval: Duration,
        target: Target,
        repeats: TimerRepeats = .forever,
        first: FirstTick = .afterInterval,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping @Sendable (Target, TimerTick) -> Void
    ) throws(TempoError) {
        let configuration = Configuration(
            every: interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy,
            delivery: delivery, clock: clock)
        let bound = WeakTarget(target, handler)
        try self.init(
            configuration: configuration, scheduler: scheduler, targetIsAlive: bound.isAlive, handler: bound.handler)
    }

    /// Creates an idle timer with an interval in seconds, converted exactly (0.5 is 500,000,000 ns); call
    /// ``start()``.
    ///
    /// - Parameters:
    ///   - seconds: The period between ticks, in seconds.
    ///   - repeats: How many ticks.
    ///   - clock: The clock deadlines are measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called for each tick.
    /// - Throws: ``TempoError`` for NaN, infinite, zero, negative or oversized `seconds`.
    public convenience init(
        seconds: Double,
        repeats: TimerRepeats = .forever,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: Handler? = nil
    ) throws(TempoError) {
        let interval = try TempoError.interval(seconds: seconds)
        try self.init(every: interval, repeats: repeats, clock: clock, scheduler: scheduler, handler: handler)
    }
}
