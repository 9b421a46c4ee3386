public import Foundation
public import Tempo

/// Plan timers kept by key, so that a job such as "nightly-backup" can be found, replaced or cancelled again.
///
/// ```swift
/// let jobs = PlanRegistry<String>()
/// try jobs.schedule("nightly-backup", try Plan.cron("30 2 * * *", in: berlin), handler: .fire { _ in backUp() })
/// jobs.nextDate(of: "nightly-backup")       // the date it waits for
/// jobs.cancel("nightly-backup")
/// ```
///
/// Each entry is a ``PlanTimer``, so dates, late dates, clock changes and cancellation behave as documented
/// there. This is a registry of its own rather than entries of Tempo's `TimerRegistry`, whose entries are
/// `TempoTimer`s on a fixed grid: a plan's dates are irregular and each is armed anew.
/// - **Replacing**: scheduling a key that exists replaces its timer: once the new timer is in the registry
///   (before `schedule` returns) the old one is cancelled and its handler no longer starts.
/// - **Finishing**: an entry whose plan has no more dates leaves the registry (``contains(_:)``, ``keys`` and
///   ``count`` no longer see it).
/// - **Weak targets**: an entry made with ``PlanHandler/weak(_:_:)`` leaves the registry when its target dies: at
///   once for ``contains(_:)``, ``keys`` and ``count``, and its plan timer is cancelled on its next fire at the latest.
///
/// ## Thread safety
/// Every method may be called from any thread, including from a handler of the same registry (a handler may
/// replace or cancel its own key). No user code runs under the registry's lock.
public final class PlanRegistry<Key: Hashable & Sendable>: Sendable {
    /// The entries, shared with the entries' handlers (which check that their entry is still current).
    private let storage = KeyedTimers<Key, PlanTimer>()
    /// The scheduler every plan timer of this registry runs on.
    public let scheduler: any TimerScheduler

    /// Creates an empty registry.
    ///
    /// - Parameter scheduler: The scheduler for every timer (default `SystemScheduler.shared`; pass a
    ///   `VirtualClock` in tests).
    public init(scheduler: any TimerScheduler = SystemScheduler.shared) {
        self.scheduler = scheduler
    }

    deinit {
        storage.removeAll()
    }

    /// Runs `plan` under `key`, replacing (and cancelling) the key's timer. The timer starts at once.
    ///
    /// A ``PlanHandler/timer(_:)`` handler receives the key's plan timer; a ``PlanHandler/weak(_:_:)`` entry leaves
    /// the registry when its target dies.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection (such as `""`) is rejected.
    ///   - plan: The plan.
    ///   - leeway: How late a fire may run to batch wakeups (default zero).
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - delivery: Where the handler runs (default `TimerDelivery.privateQueue`: a serial lane per entry,
    ///     so runs never overlap; no entry owns a queue).
    ///   - handler: What runs on each fire.
    /// - Returns: Whether an existing entry was replaced.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidKey`` for an empty key, or as
    ///   ``PlanTimer/init(_:leeway:latePolicy:delivery:scheduler:handler:)`` throws; the registry is then unchanged.
    @discardableResult
    public func schedule(
        _ key: Key,
        _ plan: Plan,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        handler: PlanHandler
    ) throws(PlanError) -> Bool {
        // Its handler checks that the entry is still current, so a replaced timer never runs user code once its
        // replacement is in the registry.
        let entry: KeyedTimers<Key, PlanTimer>.NewEntry<PlanFire>
        do {
            entry = try storage.newEntry(forKey: key, of: "plan", handler: handler)
        } catch {
            throw PlanError(error)
        }
        let current = PlanHandler(
            body: .timer(entry.handler), targetIsAlive: handler.targetIsAlive, runsOnMainActor: handler.runsOnMainActor)
        let timer = try PlanTimer(
            plan, leeway: leeway, latePolicy: latePolicy, delivery: delivery, scheduler: scheduler, handler: current)
        return storage.install(entry, timer: timer)
    }

    /// Runs `plan` under `key` and calls `body` with each fire: ``schedule(_:_:leeway:latePolicy:delivery:handler:)``
    /// with ``PlanHandler/fire(_:)``, as a trailing closure.
    ///
    /// ```swift
    /// try jobs.schedule("nightly-backup", plan) { fire in backUp() }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection (such as `""`) is rejected.
    ///   - plan: The plan.
    ///   - leeway: How late a fire may run to batch wakeups (default zero).
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - delivery: Where `body` runs (default `TimerDelivery.privateQueue`).
    ///   - body: Called for each fire.
    /// - Returns: Whether an existing entry was replaced.
    /// - Throws: ``PlanError`` as ``schedule(_:_:leeway:latePolicy:delivery:handler:)`` does.
    @discardableResult
    public func schedule(
        _ key: Key,
        _ plan: Plan,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        _ body: @escaping @Sendable (PlanFire) -> Void
    ) throws(PlanError) -> Bool {
        try schedule(key, plan, leeway: leeway, latePolicy: latePolicy, delivery: delivery, handler: .fire(body))
    }

    /// Runs `plan` under `key` and calls `body` with the key's plan timer and each fire:
    /// ``schedule(_:_:leeway:latePolicy:delivery:handler:)`` with ``PlanHandler/timer(_:)``, as a trailing closure.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection (such as `""`) is rejected.
    ///   - plan: The plan.
    ///   - leeway: How late a fire may run to batch wakeups (default zero).
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - delivery: Where `body` runs (default `TimerDelivery.privateQueue`).
    ///   - body: Called with the key's plan timer and each fire.
    /// - Returns: Whether an existing entry was replaced.
    /// - Throws: ``PlanError`` as ``schedule(_:_:leeway:latePolicy:delivery:handler:)`` does.
    @discardableResult
    public func schedule(
        _ key: Key,
        _ plan: Plan,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        _ body: @escaping @Sendable (PlanTimer, PlanFire) -> Void
    ) throws(PlanError) -> Bool {
        try schedule(key, plan, leeway: leeway, latePolicy: latePolicy, delivery: delivery, handler: .timer(body))
    }

    /// Cancels and removes the entry for `key`.
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether the key had a running entry.
    @discardableResult
    public func cancel(_ key: Key) -> Bool {
        guard let removed = storage.removeValue(forKey: key) else { return false }
        let wasRunning = removed.timer.state == .running
        removed.timer.cancel()
        return wasRunning
    }

    /// Cancels and removes every entry.
    public func cancelAll() {
        storage.removeAll()
    }

    /// Whether `key` has an entry whose plan still has dates.
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether the entry exists and is running.
    public func contains(_ key: Key) -> Bool {
        pruned()[key] != nil
    }

    /// The keys of entries whose plans still have dates, in no particular order.
    public var keys: [Key] { Array(pruned().keys) }

    /// The number of entries whose plans still have dates.
    public var count: Int { pruned().count }

    /// The next date the entry for `key` waits for, or `nil` when there is no running entry.
    ///
    /// - Parameter key: The key.
    /// - Returns: The next planned date.
    public func nextDate(of key: Key) -> Date? {
        pruned()[key]?.timer.nextDate
    }

    /// The running entries, after removing those whose plans ended or whose weak targets died (see
    /// `KeyedTimers.prune()`).
    private func pruned() -> [Key: KeyedTimers<Key, PlanTimer>.Entry] {
        storage.prune()
        return storage.entries
    }
}

/// A plan timer is started and cancelled by the registry's shared key store.
extension PlanTimer: KeyedTimer {
    /// Starts the timer.
    package func startKeyed() { start() }

    /// Whether the plan has no more dates or the timer was cancelled.
    package var hasEnded: Bool { state != .running }
}
