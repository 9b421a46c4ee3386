extension TimerRegistry {
    /// Schedules a repeating or finite timer under `key`, replacing the key's timer.
    ///
    /// The first tick is due as `first` says (one interval after this call by default), then every `interval`
    /// on an anchored grid; see ``TempoTimer`` for late ticks and pause.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - interval: The period between ticks.
    ///   - repeats: How many ticks (default forever); a finite timer leaves the registry after its last tick.
    ///   - first: When the first tick is due.
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock deadlines are measured on.
    ///   - handler: Called for each tick.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` for an empty key or an invalid schedule.
    @discardableResult
    public func schedule(
        _ key: Key,
        every interval: Duration,
        repeats: TimerRepeats = .forever,
        first: FirstTick = .afterInterval,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        handler: @escaping TempoTimer.Handler
    ) throws(TempoError) -> Bool {
        try schedule(
            key,
            .repeating(
                interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy, delivery: delivery,
                clock: clock),
            handler: .tick(handler))
    }

    /// Schedules a one-shot timer under `key`, due `delay` after this call; it leaves the registry after its tick.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - delay: The time from now to the tick.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock the delay is measured on.
    ///   - handler: Called once.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` for an empty key or a delay that is not positive.
    @discardableResult
    public func schedule(
        _ key: Key,
        after delay: Duration,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        handler: @escaping TempoTimer.Handler
    ) throws(TempoError) -> Bool {
        try schedule(key, .after(delay, leeway: leeway, delivery: delivery, clock: clock), handler: .tick(handler))
    }
}
