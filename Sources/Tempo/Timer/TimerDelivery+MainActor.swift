import Dispatch

/// Delivery on the main actor, for handlers declared `@MainActor` (UI code).
///
/// Pass ``mainActor`` as the `delivery:` of `TempoTimer.every(_:...)`, `TempoTimer.once(after:...)`,
/// ``TimerRegistry``'s `schedule(_:every:...)` and `schedule(_:after:...)`, or a ``SharedTicker``'s initializer
/// (then subscribe with ``SharedTicker/subscribeOnMainActor(every:_:)``), and the handler is
/// `@MainActor`: it may touch main-actor state directly, checked by the compiler, with no
/// `MainActor.assumeIsolated` in your code. Handlers run on the main queue (which is the main actor's executor),
/// so runs keep the order and never-overlap guarantees of ``TimerDelivery/queue(_:)``.
///
/// `MainActorDelivery` is a value type and is `Sendable`.
public struct MainActorDelivery: Hashable, Sendable {
    /// Run handlers on the main actor.
    public static let mainActor = MainActorDelivery()

    /// The queue handlers run on: the main queue.
    var timerDelivery: TimerDelivery { .queue(.main) }

    /// Wraps a main-actor handler for delivery on the main queue.
    static func wrap<Argument: Sendable>(_ handler: @escaping @MainActor (Argument) -> Void)
        -> @Sendable (Argument) -> Void
    {
        { argument in
            // Delivery is on the main queue, which is where the main actor runs.
            MainActor.assumeIsolated { handler(argument) }
        }
    }
}

extension TempoTimer {
    /// Creates a timer whose handler runs on the main actor, and starts it.
    ///
    /// ```swift
    /// @MainActor final class ClockViewModel {
    ///     var now = ""
    ///     var timer: TimerHandle?
    ///     func start() throws {
    ///         timer = try TempoTimer.every(.seconds(1), delivery: .mainActor) { [weak self] tick in
    ///             self?.now = "\(tick.index)"   // main-actor state, no hop, no assumeIsolated
    ///         }.cancelledOnRelease()
    ///     }
    /// }
    /// ```
    ///
    /// Timing as for the form with a ``TimerDelivery``; the handler runs on the main queue, so it runs late
    /// while the main thread is busy (coalesced by default, never a burst).
    ///
    /// - Parameters:
    ///   - interval: The period between ticks.
    ///   - repeats: How many ticks (default forever).
    ///   - first: When the first tick is due (default one interval from now).
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - latePolicy: What happens to missed ticks.
    ///   - delivery: ``MainActorDelivery/mainActor``.
    ///   - clock: The clock deadlines are measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called on the main actor for each tick.
    /// - Returns: The timer, in the ``TimerState/running`` state.
    /// - Throws: ``TempoError`` when the schedule is invalid; nothing is started then.
    @discardableResult
    public static func every(
        _ interval: Duration,
        repeats: TimerRepeats = .forever,
        first: FirstTick = .afterInterval,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: MainActorDelivery,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping @MainActor (TimerTick) -> Void
    ) throws(TempoError) -> TempoTimer {
        try every(
            interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy,
            delivery: delivery.timerDelivery, clock: clock, scheduler: scheduler,
            handler: MainActorDelivery.wrap(handler))
    }

    /// Creates a one-shot timer whose handler runs on the main actor, and starts it: due `delay` from now.
    ///
    /// - Parameters:
    ///   - delay: The time from now to the tick.
    ///   - leeway: How late the tick may run to batch wakeups.
    ///   - delivery: ``MainActorDelivery/mainActor``.
    ///   - clock: The clock the delay is measured on.
    ///   - scheduler: The scheduler that provides time.
    ///   - handler: Called once, on the main actor.
    /// - Returns: The timer, in the ``TimerState/running`` state.
    /// - Throws: ``TempoError`` when `delay` is not positive or too large, or `leeway` is invalid.
    @discardableResult
    public static func once(
        after delay: Duration,
        leeway: Duration = .zero,
        delivery: MainActorDelivery,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: @escaping @MainActor (TimerTick) -> Void
    ) throws(TempoError) -> TempoTimer {
        try once(
            after: delay, leeway: leeway, delivery: delivery.timerDelivery, clock: clock, scheduler: scheduler,
            handler: MainActorDelivery.wrap(handler))
    }
}
