/// Timers kept by key, so that a screen, a download or a verification-code countdown can find its timer again.
///
/// ```swift
/// let registry = TimerRegistry<String>()
/// try registry.schedule("poll-inbox", .every(.seconds(30))) { _ in refreshInbox() }
/// try registry.schedule("resend-code", .after(.seconds(60))) { _ in enableResendButton() }
/// registry.cancel("poll-inbox")
/// ```
///
/// Keys are any `Hashable & Sendable` value; ``TimerRegistry/shared`` uses `String` keys. A key that is an
/// empty collection (an empty `String`, `Substring` or `Array`) is rejected with ``TempoError/Code/invalidKey``.
///
/// ## Timing
/// Each entry is a ``TempoTimer`` with the schedule you pass, so the first tick, the anchored grid,
/// late ticks, pause and cancellation behave exactly as documented there.
/// - **Replacing**: scheduling a key that exists replaces its timer atomically. Once the new timer is in
///   the registry (before `schedule` returns), no handler run of the old timer starts, and the old timer
///   is cancelled before `schedule` returns; a run another thread had already begun completes.
/// - **Finishing**: a one-shot or finite timer leaves the registry after its last handler run, and not before:
///   every tick's handler runs exactly once, whatever the registry is asked meanwhile. (When the
///   ``LateTickPolicy/skip`` policy dropped the last slot, it leaves at once for ``contains(_:)``, ``keys``
///   and ``count``.)
/// - **Weak targets**: an entry created with a target leaves the registry when the target dies: at
///   once for ``contains(_:)``, ``keys`` and ``count``, and its timer stops on its next tick at the latest.
///
/// ## Ownership
/// The registry keeps its timers (and their handlers) until they end; timers hold the registry weakly, and
/// releasing the registry cancels them. A handler that captures its own registry keeps the registry alive
/// until that entry ends.
///
/// ## Thread safety
/// Every method may be called from any thread, concurrently, including from a handler of a timer of the same
/// registry (a handler may replace or cancel its own key). No user code runs under the registry's lock.
public final class TimerRegistry<Key: Hashable & Sendable>: Sendable {
    /// The entries, held by the registry and (strongly) by its timers' handlers (see ``KeyedTimers``).
    let storage = KeyedTimers<Key, TempoTimer>()

    /// The scheduler every timer of this registry runs on.
    public let scheduler: any TimerScheduler

    /// Creates an empty registry of your own.
    ///
    /// - Parameter scheduler: The scheduler for every timer (default ``SystemScheduler/shared``; pass a
    ///   `VirtualClock` in tests).
    public init(scheduler: any TimerScheduler = SystemScheduler.shared) {
        self.scheduler = scheduler
    }

    deinit {
        storage.removeAll()
    }

    // MARK: Scheduling

    /// Schedules a timer under `key` and starts it, replacing (and cancelling) the timer the key had.
    ///
    /// ```swift
    /// try registry.schedule("poll", .every(.seconds(30)), handler: .weak(inbox) { inbox, _ in inbox.refresh() })
    /// ```
    ///
    /// Timing is the schedule's (see ``TimerSchedule``); see the type's documentation for what replacing
    /// guarantees. A ``TimerHandler/timer(_:)`` handler receives the key's timer; a ``TimerHandler/weak(_:_:)``
    /// entry leaves the registry when its target dies.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - schedule: When the timer ticks, with its leeway, late-tick policy, delivery and clock.
    ///   - handler: What runs on each tick.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` for an empty key, or as ``TempoTimer/init(_:scheduler:handler:)`` throws for the
    ///   schedule and handler; the registry is then unchanged.
    @discardableResult
    public func schedule(_ key: Key, _ schedule: TimerSchedule, handler: TimerHandler) throws(TempoError) -> Bool {
        // Its handler checks that the entry is still current, so a replaced timer never runs user code once its
        // replacement is in the registry.
        let entry = try storage.newEntry(forKey: key, of: "timer", handler: handler)
        let delivery = try handler.delivery(for: schedule)
        let scheduler = scheduler
        let configuration = try schedule.configuration { scheduler.now(schedule.clock) }
        let total = configuration.repeats.total
        let storage = storage
        let timer = try TempoTimer(
            configuration: configuration, delivery: delivery, label: schedule.label, scheduler: scheduler,
            targetIsAlive: handler.targetIsAlive, handler: nil)
        timer.addObserver { timer, tick in
            entry.handler(timer, tick)
            // The last slot of a finite timer: leave the registry (a no-op once the entry was replaced or removed). (No
            // state handler is used for this: it would add a delivery per transition, and a synchronous one on a
            // `VirtualClock`.)
            if let total, !tick.isManual, tick.index >= total {
                storage.remove(entry.key, id: entry.id)
            }
        }
        return storage.install(entry, timer: timer)
    }

    /// Schedules a timer under `key` that calls `body` with each tick: ``schedule(_:_:handler:)`` with
    /// ``TimerHandler/tick(_:)``, as a trailing closure.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - schedule: When the timer ticks.
    ///   - body: Called for each tick.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` as ``schedule(_:_:handler:)`` does.
    @discardableResult
    public func schedule(
        _ key: Key, _ schedule: TimerSchedule, _ body: @escaping @Sendable (TimerTick) -> Void
    ) throws(TempoError) -> Bool {
        try self.schedule(key, schedule, handler: .tick(body))
    }

    /// Schedules a timer under `key` that calls `body` with its timer and each tick: ``schedule(_:_:handler:)``
    /// with ``TimerHandler/timer(_:)``, as a trailing closure.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection is rejected.
    ///   - schedule: When the timer ticks.
    ///   - body: Called with the key's timer and each tick.
    /// - Returns: Whether an existing timer was replaced.
    /// - Throws: ``TempoError`` as ``schedule(_:_:handler:)`` does.
    @discardableResult
    public func schedule(
        _ key: Key, _ schedule: TimerSchedule, _ body: @escaping @Sendable (TempoTimer, TimerTick) -> Void
    ) throws(TempoError) -> Bool {
        try self.schedule(key, schedule, handler: .timer(body))
    }
}

private let sharedStringRegistry = TimerRegistry<String>()

extension TimerRegistry where Key == String {
    /// A process-wide registry with `String` keys, on ``SystemScheduler/shared``.
    ///
    /// Share it only for keys that are unique across the app (for example prefixed by a module name); create
    /// registries of your own to keep components apart, and for tests.
    public static var shared: TimerRegistry<String> { sharedStringRegistry }
}
