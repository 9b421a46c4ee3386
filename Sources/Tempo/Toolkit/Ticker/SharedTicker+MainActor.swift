import Dispatch

extension SharedTicker {
    /// Creates a ticker that delivers on the main actor, for subscribers added with
    /// ``subscribeOnMainActor(every:_:)``; nothing is armed until the first subscriber arrives.
    ///
    /// - Parameters:
    ///   - interval: The period of the underlying timer.
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks (default ``LateTickPolicy/coalesce``).
    ///   - delivery: ``MainActorDelivery/mainActor``.
    ///   - clock: The clock the ticks are measured on.
    ///   - scheduler: The scheduler (default ``SystemScheduler/shared``; pass a `VirtualClock` in tests).
    /// - Throws: ``TempoError`` when `interval` or `leeway` is invalid.
    public convenience init(
        every interval: Duration,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: MainActorDelivery,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared
    ) throws(TempoError) {
        try self.init(
            every: interval, leeway: leeway, latePolicy: latePolicy, delivery: delivery.timerDelivery, clock: clock,
            scheduler: scheduler)
    }

    /// Subscribes a main-actor `handler` to every `every`-th tick of a ticker created with
    /// ``MainActorDelivery/mainActor`` delivery; the subscription lasts until the token is cancelled or released.
    ///
    /// Timing and ending as for ``subscribe(every:_:)``. The ticker must deliver on the main actor.
    ///
    /// - Parameters:
    ///   - every: Call on every n-th tick (default 1: every tick).
    ///   - handler: Called on the main actor with the underlying timer's tick.
    /// - Returns: The subscription; releasing it ends the subscription.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` when `every` is below 1, or with
    ///   ``TempoError/Code/invalidArgument`` when the ticker does not deliver on the main queue (create it with
    ///   `delivery: .mainActor`).
    public func subscribeOnMainActor(
        every: Int = 1,
        _ handler: @escaping @MainActor (TimerTick) -> Void
    ) throws(TempoError) -> TickerSubscription {
        guard case .queue(let queue) = timer.currentDelivery.kind, MainQueue.contains(queue) else {
            throw TempoError(
                .invalidArgument,
                value: "subscribeOnMainActor",
                message: "subscribeOnMainActor needs a ticker created with delivery: .mainActor"
            )
        }
        return try subscribe(every: every, MainActorDelivery.wrap(handler))
    }
}
