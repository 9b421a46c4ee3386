/// What runs on each event of a timer: one value in four forms, the one implementation behind ``TimerHandler``
/// (a ``TempoTimer``'s ticks, for ``TempoTimer``, ``TimerRegistry`` and ``SharedTicker``) and TempoPlans'
/// `PlanHandler` (a `PlanTimer`'s fires, for `PlanTimer` and `PlanRegistry`).
///
/// | Form | Receives | Runs on |
/// | --- | --- | --- |
/// | ``tick(_:)`` (ticks) or `fire(_:)` (plans) | the event | the delivery |
/// | ``timer(_:)`` | the timer that produced the event, and the event (no retain cycle) | the delivery |
/// | ``weak(_:_:)`` | the live target and the event; the timer ends on its first event after the target died | the delivery |
/// | ``mainActor(_:)`` | the event, on the main actor (checked by the compiler) | the main queue |
///
/// Handlers run where the timer's delivery says (see ``TimerDelivery``), one at a time per timer; a main-actor
/// handler runs on the main queue, so it runs late while the main thread is busy.
///
/// `TimerEventHandler` is a value type and is `Sendable`.
public struct TimerEventHandler<Source: AnyObject & Sendable, Event: Sendable>: Sendable {
    package enum Body: Sendable {
        case event(@Sendable (Event) -> Void)
        case timer(@Sendable (Source, Event) -> Void)
    }

    package let body: Body
    /// For ``weak(_:_:)``: whether the target is still alive.
    package let targetIsAlive: (@Sendable () -> Bool)?
    /// For ``mainActor(_:)``: the handler must run on the main queue.
    package let runsOnMainActor: Bool

    package init(body: Body, targetIsAlive: (@Sendable () -> Bool)? = nil, runsOnMainActor: Bool = false) {
        self.body = body
        self.targetIsAlive = targetIsAlive
        self.runsOnMainActor = runsOnMainActor
    }

    /// Calls `body` with the timer that produced each event and the event, so it can reset, pause or cancel it.
    ///
    /// The timer is passed at call time, not captured, so the handler creates no retain cycle. In a registry it is
    /// the key's current timer; for a ``SharedTicker`` subscriber it is the ticker's shared timer (cancel the
    /// subscription, not the timer, to leave).
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func timer(_ body: @escaping @Sendable (Source, Event) -> Void) -> Self {
        Self(body: .timer(body))
    }

    /// Holds `target` weakly and passes it to `body` on each event; once the target has been deallocated the timer
    /// (or the registry entry, or the subscription) ends on its next event instead of calling `body`, and a registry
    /// entry leaves its registry at once.
    ///
    /// - Parameters:
    ///   - target: The object handed to `body`, never kept alive by the timer.
    ///   - body: Called with the live target and the event.
    /// - Returns: The handler value.
    public static func weak<Target: AnyObject & Sendable>(
        _ target: Target, _ body: @escaping @Sendable (Target, Event) -> Void
    ) -> Self {
        let bound = WeakTarget(target, body)
        return Self(body: .event(bound.handler), targetIsAlive: bound.isAlive)
    }

    /// Calls `body` on the main actor: it may touch main-actor state directly, checked by the compiler.
    ///
    /// Handlers run on the main queue (the main actor's executor), so they run late while the main thread is busy
    /// (coalesced by default, never a burst). The delivery must be the default (``TimerDelivery/privateQueue``, which
    /// is then replaced by the main queue) or `.queue(.main)`; any other delivery is rejected with a typed error
    /// (``TempoError/Code/invalidArgument``, or `PlanError.Code.invalidArgument` for a plan) where the handler is used.
    ///
    /// - Parameter body: The handler.
    /// - Returns: The handler value.
    public static func mainActor(_ body: @escaping @MainActor (Event) -> Void) -> Self {
        let wrapped: @Sendable (Event) -> Void = { event in
            // Delivery is on the main queue (checked when the handler is used), where the main actor runs.
            MainActor.assumeIsolated { body(event) }
        }
        return Self(body: .event(wrapped), runsOnMainActor: true)
    }

    /// The handler as one closure of the timer and the event, for owners that always have both at hand.
    package var withTimer: @Sendable (Source, Event) -> Void {
        switch body {
        case .event(let body): { _, event in body(event) }
        case .timer(let body): body
        }
    }
}

extension TimerDelivery {
    /// The delivery a main-actor handler runs with when this one was asked for: the main queue for the default
    /// (``TimerDelivery/privateQueue``), this one when it is the main queue. The one rule behind
    /// ``TimerEventHandler/mainActor(_:)`` for ticks and for plans.
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
