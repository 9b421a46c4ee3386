/// What runs on each tick: one value, accepted the same way by ``TempoTimer``, ``TimerRegistry`` and
/// ``SharedTicker``.
///
/// ```swift
/// try TempoTimer(.every(.seconds(1)), handler: .tick { tick in print(tick.index) }).start()
/// try TempoTimer(.every(.seconds(1)), handler: .timer { timer, tick in
///     if tick.index == 10 { timer.cancel() }
/// }).start()
/// ```
///
/// The common forms also have trailing-closure sugar: `TempoTimer(.every(.seconds(1))) { tick in ... }` and
/// `TempoTimer(.every(.seconds(1))) { timer, tick in ... }`.
///
/// | Form | Receives | Runs on |
/// | --- | --- | --- |
/// | ``tick(_:)`` | the tick | the schedule's delivery |
/// | ``timer(_:)`` | the timer that ticked and the tick (no retain cycle) | the schedule's delivery |
/// | ``weak(_:_:)`` | the live target and the tick; the timer ends on the first tick after the target died | the schedule's delivery |
/// | ``mainActor(_:)`` | the tick, on the main actor (checked by the compiler) | the main queue |
///
/// `TimerHandler` is a value type and is `Sendable`.
public struct TimerHandler: Sendable {
    enum Body: Sendable {
        case tick(@Sendable (TimerTick) -> Void)
        case timer(@Sendable (TempoTimer, TimerTick) -> Void)
    }

    let body: Body
    /// For ``weak(_:_:)``: whether the target is still alive.
    package let targetIsAlive: (@Sendable () -> Bool)?
    /// For ``mainActor(_:)``: the handler must run on the main queue.
    let runsOnMainActor: Bool

    /// Calls `body` with each tick.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func tick(_ body: @escaping @Sendable (TimerTick) -> Void) -> TimerHandler {
        TimerHandler(body: .tick(body), targetIsAlive: nil, runsOnMainActor: false)
    }

    /// Calls `body` with the timer that ticked and the tick, so it can reset, pause or cancel the timer.
    ///
    /// The timer is passed at call time, not captured, so the handler creates no retain cycle. In a
    /// ``TimerRegistry`` it is the key's current timer; for a ``SharedTicker`` subscriber it is the ticker's shared
    /// timer (cancel the subscription, not the timer, to leave).
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func timer(_ body: @escaping @Sendable (TempoTimer, TimerTick) -> Void) -> TimerHandler {
        TimerHandler(body: .timer(body), targetIsAlive: nil, runsOnMainActor: false)
    }

    /// Holds `target` weakly and passes it to `body` on each tick; once the target has been deallocated the timer
    /// (or the registry entry, or the subscription) ends on its next tick instead of calling `body`.
    ///
    /// - Parameters:
    ///   - target: The object handed to `body`, never kept alive by the timer.
    ///   - body: Called with the live target and the tick.
    /// - Returns: The handler value.
    public static func weak<Target: AnyObject & Sendable>(
        _ target: Target, _ body: @escaping @Sendable (Target, TimerTick) -> Void
    ) -> TimerHandler {
        let bound = WeakTarget(target, body)
        return TimerHandler(body: .tick(bound.handler), targetIsAlive: bound.isAlive, runsOnMainActor: false)
    }

    /// Calls `body` on the main actor: it may touch main-actor state directly, checked by the compiler.
    ///
    /// Handlers run on the main queue (the main actor's executor), so they run late while the main thread is busy
    /// (coalesced by default, never a burst). The schedule's delivery must be the default
    /// (``TimerDelivery/privateQueue``, which is then replaced by the main queue) or `.queue(.main)`; any other
    /// delivery is rejected with ``TempoError/Code/invalidArgument`` where the handler is used.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func mainActor(_ body: @escaping @MainActor (TimerTick) -> Void) -> TimerHandler {
        TimerHandler(body: .tick(assumingMainActor(body)), targetIsAlive: nil, runsOnMainActor: true)
    }
}

extension TimerHandler {
    /// The delivery to arm `schedule` with: the schedule's own, or the main queue for a main-actor handler.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidArgument`` when a main-actor handler meets a delivery
    ///   other than the default or the main queue.
    func delivery(for schedule: TimerSchedule) throws(TempoError) -> TimerDelivery {
        runsOnMainActor ? try schedule.delivery.forMainActor() : schedule.delivery
    }
}

extension TimerHandler: KeyedHandler {
    /// Runs the body with `tick`, passing `timer` to a ``timer(_:)`` body.
    package func run(_ timer: TempoTimer, _ tick: TimerTick) {
        switch body {
        case .tick(let body): body(tick)
        case .timer(let body): body(timer, tick)
        }
    }
}

extension TimerDelivery {
    /// The delivery a main-actor handler runs with when this one was asked for: the main queue for the default
    /// (``TimerDelivery/privateQueue``), this one when it is the main queue. The one rule behind
    /// ``TimerHandler/mainActor(_:)`` and TempoPlans' `PlanHandler.mainActor(_:)`.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidArgument`` naming any other delivery.
    package func forMainActor() throws(TempoError) -> TimerDelivery {
        switch kind {
        case .privateQueue: return .queue(.main)
        case .queue(let queue) where MainQueue.contains(queue): return self
        case .queue: break
        case .immediate: break
        }
        throw TempoError(
            .invalidArgument, value: "\(self)",
            message: "a main-actor handler runs on the main queue, not with delivery \(self)")
    }
}
