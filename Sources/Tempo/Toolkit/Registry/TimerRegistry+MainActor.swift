extension TimerRegistry {
    /// Schedules a timer under `key` whose handler runs on the main actor (see ``MainActorDelivery``).
    ///
    /// Timing, replacing and finishing as for the form with a ``TimerDelivery``.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - interval: The period between ticks.
    ///   - repeats: How many ticks (default forever); a finite timer leaves the registry after its last tick.
    ///   - first: When the first tick is due.
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks.
    ///   - delivery: ``MainActorDelivery/mainActor``.
    ///   - clock: The clock deadlines are measured on.
    ///   - handler: Called on the main actor for each tick.
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
        delivery: MainActorDelivery,
        clock: TimerClock = .monotonic,
        handler: @escaping @MainActor (TimerTick) -> Void
    ) throws(TempoError) -> Bool {
        try schedule(
            key, every: interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy,
            delivery: delivery.timerDelivery, clock: clock, handler: MainActorDelivery.wrap(handler))
    }

    /// Schedules a one-shot timer under `key`, due `delay` from now, whose handler runs on the main actor.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - delay: The time from now to the tick.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: ``MainActorDelivery/mainActor``.
    ///   - clock: The clock the delay is measured on.
    ///   - handler: Called once, on the main actor.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` for an empty key or a delay that is not positive.
    @discardableResult
    public func schedule(
        _ key: Key,
        after delay: Duration,
        leeway: Duration = .zero,
        delivery: MainActorDelivery,
        clock: TimerClock = .monotonic,
        handler: @escaping @MainActor (TimerTick) -> Void
    ) throws(TempoError) -> Bool {
        try schedule(
            key, after: delay, leeway: leeway, delivery: delivery.timerDelivery, clock: clock,
            handler: MainActorDelivery.wrap(handler))
    }
}
