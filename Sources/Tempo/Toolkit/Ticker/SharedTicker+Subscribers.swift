import Synchronization

extension SharedTicker {
    /// Subscribes `handler` to every `every`-th tick; the subscription lasts until the token is cancelled or
    /// released.
    ///
    /// The first call comes `every` ticks after this one (the first tick of a stopped ticker is due one interval
    /// after the first subscriber arrived). Subscribing from a handler takes effect from the next tick.
    ///
    /// - Parameters:
    ///   - every: Call on every n-th tick (default 1: every tick).
    ///   - handler: Called with the underlying timer's tick.
    /// - Returns: The subscription; releasing it ends the subscription.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` when `every` is below 1.
    public func subscribe(
        every: Int = 1,
        _ handler: @escaping TempoTimer.Handler
    ) throws(TempoError) -> TickerSubscription {
        let id = try add(every: every, ownerIsAlive: nil, handler: handler)
        return TickerSubscription(ticker: self, id: id, endsOnRelease: true)
    }

    /// Subscribes a handler that receives `owner`, held weakly; the subscription ends when the owner dies.
    ///
    /// The owner needs no cleanup code: releasing the returned token does *not* end the subscription (cancel it
    /// to end it earlier). A dead owner's subscription is dropped on the next tick, and is no longer counted
    /// by ``subscriberCount`` at once.
    ///
    /// - Parameters:
    ///   - owner: The object handed to `handler`, held weakly.
    ///   - every: Call on every n-th tick (default 1).
    ///   - handler: Called with the live owner and the tick.
    /// - Returns: The subscription, for an early ``TickerSubscription/cancel()``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` when `every` is below 1.
    @discardableResult
    public func subscribe<Owner: AnyObject & Sendable>(
        owner: Owner,
        every: Int = 1,
        handler: @escaping @Sendable (Owner, TimerTick) -> Void
    ) throws(TempoError) -> TickerSubscription {
        let bound = WeakTarget(owner, handler)
        let id = try add(every: every, ownerIsAlive: bound.isAlive, handler: bound.handler)
        return TickerSubscription(ticker: self, id: id, endsOnRelease: false)
    }

    private func add(
        every: Int,
        ownerIsAlive: (@Sendable () -> Bool)?,
        handler: @escaping TempoTimer.Handler
    ) throws(TempoError) -> UInt64 {
        guard every >= 1 else {
            throw TempoError(.invalidCount, value: "\(every)", message: "every must be at least 1 tick, got \(every)")
        }
        let (id, action) = state.withLock { $0.subscribe(every: every, ownerIsAlive: ownerIsAlive, handler: handler) }
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
/// A subscription made with ``SharedTicker/subscribe(every:_:)`` ends when ``cancel()`` is called or when
/// the token is released (deinitialized). One made with an owner ends when the owner dies or on ``cancel()``.
/// Once ``cancel()`` returns the handler is not called again (a call another thread had already begun
/// completes). Tokens keep their ticker alive. Thread-safe.
public final class TickerSubscription: Sendable {
    private let ticker: SharedTicker
    private let id: UInt64
    private let endsOnRelease: Bool

    init(ticker: SharedTicker, id: UInt64, endsOnRelease: Bool) {
        self.ticker = ticker
        self.id = id
        self.endsOnRelease = endsOnRelease
    }

    deinit {
        if endsOnRelease { ticker.remove(id) }
    }

    /// Whether the subscription is still active (not cancelled, released or orphaned by its owner's death).
    public var isActive: Bool { ticker.isActive(id) }

    /// Ends the subscription. Idempotent; the last subscription leaving stops the ticker's timer.
    public func cancel() {
        ticker.remove(id)
    }
}
