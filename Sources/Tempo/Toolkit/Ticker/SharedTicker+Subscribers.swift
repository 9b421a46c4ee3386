import Dispatch
import Synchronization

extension SharedTicker {
    /// Subscribes `handler` to every `everyNth` tick; the first subscriber starts the ticker's timer.
    ///
    /// A ``TimerHandler/tick(_:)``, ``TimerHandler/timer(_:)`` or ``TimerHandler/mainActor(_:)`` subscription
    /// ends when ``TickerSubscription/cancel()`` is called or the token is released; a ``TimerHandler/weak(_:_:)``
    /// one when its target dies or on `cancel()` (releasing the token does not end it). A ``TimerHandler/timer(_:)``
    /// handler receives the ticker's shared timer.
    ///
    /// A ``TimerHandler/mainActor(_:)`` handler follows the rule of ``TempoTimer``: the ticker's delivery must be the
    /// default (``TimerDelivery/privateQueue``) or `.queue(.main)`. On a `.queue(.main)` ticker it is called in its
    /// turn among the subscribers; on a default-delivery ticker each of its calls is enqueued on the main queue, in
    /// tick order, after the tick's other subscribers were called (a call still waiting there when the subscription
    /// ends is dropped).
    ///
    /// - Parameters:
    ///   - everyNth: Call on every n-th tick (default 1: every tick), counted from the ticker's next tick: a count of
    ///     ticks, not an interval (the ticker's schedule has the interval).
    ///   - handler: What runs on those ticks.
    /// - Returns: The subscription. Keep it: a dropped token ends a `tick`, `timer` or `mainActor` subscription at
    ///   once, so the compiler warns when the result is unused; for a `weak` one, write `_ = try ticker.subscribe(...)`.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` when `everyNth` is below 1, or with
    ///   ``TempoError/Code/invalidArgument`` for a main-actor handler on a ticker whose delivery is neither the
    ///   default nor the main queue.
    public func subscribe(everyNth: Int = 1, handler: TimerHandler) throws(TempoError) -> TickerSubscription {
        var body: @Sendable (TimerTick) -> Void
        switch handler.body {
        case .tick(let tick): body = tick
        case .timer(let withTimer):
            let timer = timer
            body = { tick in withTimer(timer, tick) }
        }
        var hop = false
        if handler.runsOnMainActor {
            // The main-actor rule of every handler (`TimerDelivery.forMainActor()`): the main queue, or the default,
            // whose calls then hop to the main queue.
            _ = try timer.currentDelivery.forMainActor()
            if case .privateQueue = timer.currentDelivery.kind { hop = true }
        }
        let gate = MainQueueHop()
        if hop {
            let onMain = body
            body = { [weak self] tick in
                DispatchQueue.main.async {
                    guard let self, self.isActive(gate.id.load(ordering: .acquiring)) else { return }
                    onMain(tick)
                }
            }
        }
        let id = try add(every: everyNth, targetIsAlive: handler.targetIsAlive, handler: body)
        if hop { gate.id.store(id, ordering: .releasing) }
        return TickerSubscription(ticker: self, id: id, endsOnRelease: handler.targetIsAlive == nil)
    }

    /// Subscribes `handler` under `id`, replacing the subscription `id` had: SingleTimer's observers de-duplicated
    /// by id.
    ///
    /// Once this returns, the subscription `id` had before is ended (its handler is not called again, except for a
    /// call another thread had already begun). Timing and handlers as for ``subscribe(everyNth:handler:)``; releasing
    /// the token does not end the subscription (a later subscription under `id`, ``TickerSubscription/cancel()`` or
    /// a ``TimerHandler/weak(_:_:)`` target's death does).
    ///
    /// - Parameters:
    ///   - id: The subscriber's identity.
    ///   - everyNth: Call on every n-th tick (default 1: every tick).
    ///   - handler: What runs on those ticks.
    /// - Returns: The subscription.
    /// - Throws: ``TempoError`` as ``subscribe(everyNth:handler:)`` does; the subscription `id` had is then kept.
    @discardableResult
    public func subscribe(
        id: some Hashable & Sendable, everyNth: Int = 1, handler: TimerHandler
    ) throws(TempoError) -> TickerSubscription {
        let subscription = try subscribe(everyNth: everyNth, handler: handler)
        let key = SubscriberID(id)
        let replaced = subscriptionsByID.withLock { $0.updateValue(subscription.id, forKey: key) }
        // Outside the lock: ending a subscription may stop the timer.
        if let replaced { remove(replaced) }
        return TickerSubscription(ticker: self, id: subscription.detach(), endsOnRelease: false)
    }

    /// Subscribes `body` to every `everyNth` tick: ``subscribe(everyNth:handler:)`` with ``TimerHandler/tick(_:)``,
    /// as a trailing closure. The subscription ends on cancel or when the token is released.
    ///
    /// - Parameters:
    ///   - everyNth: Call on every n-th tick (default 1: every tick).
    ///   - body: Called with the underlying timer's tick.
    /// - Returns: The subscription; releasing it ends the subscription.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` when `everyNth` is below 1.
    public func subscribe(
        everyNth: Int = 1, _ body: @escaping @Sendable (TimerTick) -> Void
    ) throws(TempoError) -> TickerSubscription {
        try subscribe(everyNth: everyNth, handler: .tick(body))
    }

    /// Subscribes `body` to every `everyNth` tick, called with the ticker's shared timer and the tick:
    /// ``subscribe(everyNth:handler:)`` with ``TimerHandler/timer(_:)``, as a trailing closure. The subscription ends
    /// on cancel or when the token is released.
    ///
    /// - Parameters:
    ///   - everyNth: Call on every n-th tick (default 1: every tick).
    ///   - body: Called with the ticker's shared timer (cancel the subscription, not the timer, to leave) and the tick.
    /// - Returns: The subscription; releasing it ends the subscription.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` when `everyNth` is below 1.
    public func subscribe(
        everyNth: Int = 1, _ body: @escaping @Sendable (TempoTimer, TimerTick) -> Void
    ) throws(TempoError) -> TickerSubscription {
        try subscribe(everyNth: everyNth, handler: .timer(body))
    }

    private func add(
        every: Int,
        targetIsAlive: (@Sendable () -> Bool)?,
        handler: @escaping @Sendable (TimerTick) -> Void
    ) throws(TempoError) -> UInt64 {
        guard every >= 1 else {
            throw TempoError(
                .invalidCount, value: "\(every)",
                message: "everyNth must be at least 1 (a count of ticks), got \(every)")
        }
        let (id, action) = state.withLock { $0.subscribe(every: every, ownerIsAlive: targetIsAlive, handler: handler) }
        perform(action)
        return id
    }

    /// Ends subscription `id`; returns whether it was active.
    @discardableResult
    func remove(_ id: UInt64) -> Bool {
        let (handler, action) = state.withLock { state in
            let removed = state.unsubscribe(id)
            if removed.handler != nil { removals.wrappingAdd(1, ordering: .releasing) }
            return removed
        }
        perform(action)
        // The closure may hold the last reference to user objects: it is released here, outside the lock.
        return handler != nil
    }

    func isActive(_ id: UInt64) -> Bool {
        state.withLock { $0.isActive(id) }
    }

    // MARK: Fan-out

    /// Calls the subscribers due on this tick, in subscription order, outside the lock.
    func deliver(_ tick: TimerTick) {
        let (started, epoch) = state.withLock { state in
            (state.tickStarted(missed: tick.missed), removals.load(ordering: .relaxed))
        }
        let (snapshot, before, after) = (started.subscribers, started.slotsBefore, started.slotsAfter)
        var dead: [UInt64] = []
        snapshot.withUnsafeBufferPointer { subscribers in
            for index in subscribers.indices {
                guard let handler = subscribers[index].handler else { continue }
                let every = subscribers[index].every
                if every != 1 {
                    let phase = subscribers[index].phase
                    guard (after - phase) / every != (before - phase) / every else { continue }
                }
                if removals.load(ordering: .acquiring) != epoch, !isActive(subscribers[index].id) {
                    continue
                }
                if let ownerIsAlive = subscribers[index].ownerIsAlive, !ownerIsAlive() {
                    dead.append(subscribers[index].id)
                    continue
                }
                handler(tick)
            }
        }
        for id in dead {
            remove(id)
        }
    }
}

/// A subscription to a ``SharedTicker``.
///
/// A subscription made with ``SharedTicker/subscribe(everyNth:handler:)`` ends when ``cancel()`` is called or when
/// the token is released (deinitialized). One made with a ``TimerHandler/weak(_:_:)`` handler ends when its target dies or on ``cancel()``.
/// Once ``cancel()`` returns the handler is not called again (a call another thread had already begun
/// completes). Tokens keep their ticker alive. Thread-safe.
public final class TickerSubscription: Sendable {
    private let ticker: SharedTicker
    let id: UInt64
    private let endsOnRelease: Bool
    /// Whether another token took over ending the subscription (see ``detach()``).
    private let detached = Atomic<Bool>(false)

    init(ticker: SharedTicker, id: UInt64, endsOnRelease: Bool) {
        self.ticker = ticker
        self.id = id
        self.endsOnRelease = endsOnRelease
    }

    deinit {
        if endsOnRelease && !detached.load(ordering: .relaxed) { ticker.remove(id) }
    }

    /// Hands the subscription to another token: releasing this one no longer ends it. Returns the id.
    func detach() -> UInt64 {
        detached.store(true, ordering: .relaxed)
        return id
    }

    /// Whether the subscription is still active (not cancelled, released or ended by its weak target's death).
    public var isActive: Bool { ticker.isActive(id) }

    /// Ends the subscription. Idempotent; the last subscription leaving stops the ticker's timer.
    public func cancel() {
        ticker.remove(id)
    }
}

/// The id of a main-actor subscription whose calls hop to the main queue, set once the subscription exists, so that a
/// call still waiting on the main queue when the subscription ends is dropped.
private final class MainQueueHop: Sendable {
    let id = Atomic<UInt64>(.max)
}
