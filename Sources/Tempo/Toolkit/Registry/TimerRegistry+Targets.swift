extension TimerRegistry {
    /// Schedules a timer under `key` that holds `target` weakly, without building a ``TempoTimer/Configuration``.
    ///
    /// The form of NSTimer's `scheduledTimer(timeInterval:target:selector:userInfo:repeats:)` and of weak-target
    /// wrappers: the handler gets the live target; the entry ends (and its timer stops) when the target dies,
    /// so the target needs no cleanup code. Timing as for
    /// ``schedule(_:every:repeats:first:leeway:latePolicy:delivery:clock:handler:)-(_,_,_,_,_,_,TimerDelivery,_,_)``.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - interval: The period between ticks.
    ///   - target: The object handed to `handler`, held weakly.
    ///   - repeats: How many ticks (default forever).
    ///   - first: When the first tick is due.
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock deadlines are measured on.
    ///   - handler: Called with the live target and the tick.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` for an empty key or an invalid schedule; the registry is then unchanged.
    @discardableResult
    public func schedule<Target: AnyObject & Sendable>(
        _ key: Key,
        every interval: Duration,
        target: Target,
        repeats: TimerRepeats = .forever,
        first: FirstTick = .afterInterval,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        handler: @escaping @Sendable (Target, TimerTick) -> Void
    ) throws(TempoError) -> Bool {
        try schedule(
            key,
            .repeating(
                interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy, delivery: delivery,
                clock: clock),
            handler: .weak(target, handler))
    }

    /// Schedules a one-shot timer under `key`, due `delay` from now, that holds `target` weakly.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - delay: The time from now to the tick.
    ///   - target: The object handed to `handler`, held weakly; if it dies first, the handler never runs.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: Where the handler runs.
    ///   - clock: The clock the delay is measured on.
    ///   - handler: Called once with the live target and the tick.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` for an empty key or a delay that is not positive.
    @discardableResult
    public func schedule<Target: AnyObject & Sendable>(
        _ key: Key,
        after delay: Duration,
        target: Target,
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        handler: @escaping @Sendable (Target, TimerTick) -> Void
    ) throws(TempoError) -> Bool {
        try schedule(
            key, .after(delay, leeway: leeway, delivery: delivery, clock: clock), handler: .weak(target, handler))
    }
}
