extension TempoTimer {
    /// Creates a timer that holds `target` weakly and passes it to `handler` on each tick.
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
            every: interval,
            repeats: repeats,
            first: first,
            leeway: leeway,
            latePolicy: latePolicy,
            delivery: delivery,
            clock: clock
        )
        try self.init(
            configuration: configuration,
            scheduler: scheduler,
            targetIsAlive: { [weak target] in target != nil },
            handler: { [weak target] tick in
                if let target { handler(target, tick) }
            }
        )
    }

    /// Creates a one-shot timer whose single tick is due `delay` after ``start()``.
    ///
    /// - Parameters:
    ///   - delay: The time from start to the tick.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock the delay is measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called once.
    /// - Returns: An idle timer.
    /// - Throws: ``TempoError`` when `delay` is not positive or too large.
    public static func once(
        after delay: Duration,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping Handler
    ) throws(TempoError) -> TempoTimer {
        try TempoTimer(
            every: delay,
            repeats: .once,
            leeway: leeway,
            delivery: delivery,
            clock: clock,
            scheduler: scheduler,
            handler: handler
        )
    }

    /// Creates a one-shot timer whose single tick is due at `deadline` on `clock`.
    ///
    /// - Parameters:
    ///   - deadline: The instant of `clock` at which the tick is due.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock `deadline` belongs to.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called once.
    /// - Returns: An idle timer.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` has already passed
    ///   on `clock` when this is called.
    public static func once(
        at deadline: TimerInstant,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping Handler
    ) throws(TempoError) -> TempoTimer {
        let configuration = try Configuration.oneShot(
            at: deadline,
            leeway: leeway,
            delivery: delivery,
            clock: clock,
            now: scheduler.now(clock)
        )
        return try TempoTimer(configuration: configuration, scheduler: scheduler, handler: handler)
    }

    /// Creates a timer with an interval in seconds, converted exactly (0.5 is 500,000,000 ns).
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
