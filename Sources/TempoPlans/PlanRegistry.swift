public import Dispatch
public import Foundation
public import Tempo
import TempoLocks

/// Plan timers kept by key, so that a job such as "nightly-backup" can be found, replaced or cancelled again.
///
/// ```swift
/// let jobs = PlanRegistry<String>()
/// try jobs.schedule("nightly-backup", plan: try Plan.cron("30 2 * * *", in: berlin)) { fire in backUp() }
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
///
/// ## Thread safety
/// Every method may be called from any thread, including from a handler of the same registry (a handler may
/// replace or cancel its own key). No user code runs under the registry's lock.
public final class PlanRegistry<Key: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        let id: UInt64
        let timer: PlanTimer
    }

    private struct Entries: Sendable {
        var byKey: [Key: Entry] = [:]
        var nextID: UInt64 = 1
    }

    /// The entries, shared with the entries' handlers (which check that their entry is still current).
    private final class Storage: Sendable {
        let state = TempoMutex(Entries())
    }

    private let storage = Storage()
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
        let timers = storage.state.withLock { entries in
            defer { entries.byKey.removeAll() }
            return entries.byKey.values.map(\.timer)
        }
        for timer in timers { timer.cancel() }
    }

    /// Runs `plan` under `key`, replacing (and cancelling) the key's timer. The timer starts at once.
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection (such as `""`) is rejected.
    ///   - plan: The plan.
    ///   - latePolicy: What happens to missed dates (default `LateTickPolicy.coalesce`).
    ///   - leeway: How late a fire may run to batch wakeups.
    ///   - queue: Where the handler runs (default: a private serial queue per entry).
    ///   - handler: Called for each fire.
    /// - Returns: Whether an existing entry was replaced.
    /// - Throws: ``PlanError`` with ``PlanError/Code/invalidKey`` for an empty key, or
    ///   ``PlanError/Code/invalidLeeway``; the registry is then unchanged.
    @discardableResult
    public func schedule(
        _ key: Key,
        plan: Plan,
        latePolicy: LateTickPolicy = .coalesce,
        leeway: Duration = .zero,
        queue: DispatchQueue? = nil,
        handler: @escaping PlanTimer.Handler
    ) throws(PlanError) -> Bool {
        if let collection = key as? any Collection, collection.isEmpty {
            throw PlanError(.invalidKey, text: "\"\(key)\"", message: "a plan key must not be empty, got \"\(key)\"")
        }
        let id = storage.state.withLock { entries in
            defer { entries.nextID += 1 }
            return entries.nextID
        }
        let timer = try PlanTimer(
            plan, latePolicy: latePolicy, leeway: leeway, queue: queue, scheduler: scheduler
        ) { [storage] fire in
            guard storage.state.withLock({ $0.byKey[key]?.id == id }) else { return }
            handler(fire)
        }
        let old = storage.state.withLock { $0.byKey.updateValue(Entry(id: id, timer: timer), forKey: key) }
        old?.timer.cancel()
        timer.start()
        // A concurrent `schedule` or `cancel` of the same key may have displaced this entry before `start()`.
        if storage.state.withLock({ $0.byKey[key]?.id != id }) { timer.cancel() }
        return old != nil
    }

    /// Cancels and removes the entry for `key`.
    ///
    /// - Parameter key: The key.
    /// - Returns: Whether the key had a running entry.
    @discardableResult
    public func cancel(_ key: Key) -> Bool {
        let removed = storage.state.withLock { $0.byKey.removeValue(forKey: key) }
        guard let removed else { return false }
        let wasRunning = removed.timer.state == .running
        removed.timer.cancel()
        return wasRunning
    }

    /// Cancels and removes every entry.
    public func cancelAll() {
        let removed = storage.state.withLock { entries in
            defer { entries.byKey.removeAll() }
            return Array(entries.byKey.values)
        }
        for entry in removed { entry.timer.cancel() }
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

    /// The running entries, after removing those whose plans ended.
    private func pruned() -> [Key: Entry] {
        let (live, ended) = storage.state.withLock { entries -> ([Key: Entry], [Entry]) in
            var ended: [Entry] = []
            for (key, entry) in entries.byKey where entry.timer.state != .running {
                ended.append(entry)
                entries.byKey[key] = nil
            }
            return (entries.byKey, ended)
        }
        withExtendedLifetime(ended) {}
        return live
    }
}
