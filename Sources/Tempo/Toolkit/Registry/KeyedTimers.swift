import TempoLocks

/// A timer that ``KeyedTimers`` starts when it is installed and cancels when it is replaced or removed.
package protocol KeyedTimer: AnyObject, Sendable {
    /// Starts the timer (named apart from `start()`, which ``TempoTimer`` returns itself from).
    func startKeyed()
    /// Cancels the timer; idempotent.
    func cancel()
    /// Whether the timer ended without a last handler run that removes its entry: it was cancelled, or ran out of
    /// ticks or dates with no handler run left to come. Read outside the store's lock.
    var hasEnded: Bool { get }
}

extension TempoTimer: KeyedTimer {
    /// Starts the timer.
    package func startKeyed() { start() }
}

/// A handler that a keyed entry runs: ``TimerHandler``, and TempoPlans' `PlanHandler`.
package protocol KeyedHandler: Sendable {
    /// The kind of timer that runs the handler.
    associatedtype Timer: KeyedTimer
    /// What each run receives (a tick, a fire).
    associatedtype Event
    /// For a weak handler: whether its target is still alive (its entry ends once it is not).
    var targetIsAlive: (@Sendable () -> Bool)? { get }
    /// Runs the handler's body with `event`, passing `timer` to a body that takes its timer.
    func run(_ timer: Timer, _ event: Event)
}

/// Timers kept by key, where installing under a key replaces (and cancels) the key's timer: the bookkeeping that
/// ``TimerRegistry`` and TempoPlans' `PlanRegistry` share.
///
/// A registry's timer handlers hold the store, not the registry, to check that their entry is still current, so
/// a replaced timer never runs user code once its replacement is in. No weak reference to the registry exists:
/// the registry's `deinit` calls ``removeAll()``, which cancels every timer and breaks the store ↔ timer cycle.
///
/// Thread-safety: every method may be called from any thread. Timers are started and cancelled, and entries
/// released, outside the store's lock.
package final class KeyedTimers<Key: Hashable & Sendable, Timer: KeyedTimer>: Sendable {
    /// A timer under a key, and the id that tells it from the timers its key held before.
    package struct Entry: Sendable {
        /// The entry's id, from ``KeyedTimers/newEntry(forKey:of:handler:)``.
        package let id: UInt64
        /// The entry's timer.
        package let timer: Timer
        /// For a weak handler: whether its target is still alive.
        let targetIsAlive: (@Sendable () -> Bool)?

        /// The weak target died, or the timer ended without a last handler run to remove the entry (see
        /// ``KeyedTimer/hasEnded``).
        var hasEnded: Bool {
            if let targetIsAlive, !targetIsAlive() { return true }
            return timer.hasEnded
        }
    }

    /// An entry about to be installed: its key (checked), its id, and the handler its timer is to run.
    package struct NewEntry<Event>: Sendable {
        /// The key.
        package let key: Key
        /// The entry's id.
        package let id: UInt64
        /// For a weak handler: whether its target is still alive.
        let targetIsAlive: (@Sendable () -> Bool)?
        /// Runs the registered handler while this entry is the key's current one, and does nothing once it was
        /// replaced or removed.
        package let handler: @Sendable (Timer, Event) -> Void
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 1
    }

    private let state = TempoMutex(State())

    package init() {}

    /// Checks `key` and makes the entry to install under it for `handler`: the key check and the handler of
    /// ``TimerRegistry`` and TempoPlans' `PlanRegistry`.
    ///
    /// The entry's handler runs `handler` (with the key's timer, for a body that takes it) only while the entry is
    /// the key's current one, so a replaced timer never runs user code once its replacement is in. An entry whose
    /// `handler` has a weak target ends when the target dies (see ``prune()``).
    ///
    /// - Parameters:
    ///   - key: The key; an empty collection (an empty `String`, `Substring` or `Array`) is rejected.
    ///   - kind: What the store keeps, for the error's message ("timer", "plan").
    ///   - handler: What the entry runs.
    /// - Returns: The entry, to pass to ``install(_:timer:)`` with the timer that runs its handler.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidKey`` for an empty key.
    package func newEntry<Handler: KeyedHandler>(
        forKey key: Key, of kind: String, handler: Handler
    ) throws(TempoError) -> NewEntry<Handler.Event> where Handler.Timer == Timer {
        if let collection = key as? any Collection, collection.isEmpty {
            throw TempoError(
                .invalidKey, value: "\"\(key)\"", message: "a \(kind) key must not be empty, got \"\(key)\"")
        }
        let id = makeID()
        return NewEntry(
            key: key, id: id, targetIsAlive: handler.targetIsAlive,
            handler: { [self] timer, event in
                guard isCurrent(key, id: id) else { return }
                handler.run(timer, event)
            })
    }

    /// A new entry id, for the timer about to be installed (its handler checks it with ``isCurrent(_:id:)``).
    private func makeID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Whether the entry under `key` is the one with `id`.
    private func isCurrent(_ key: Key, id: UInt64) -> Bool {
        state.withLock { $0.entries[key]?.id == id }
    }

    /// The entry under `key`.
    package subscript(key: Key) -> Entry? {
        state.withLock { $0.entries[key] }
    }

    /// A snapshot of the entries.
    package var entries: [Key: Entry] {
        state.withLock { $0.entries }
    }

    /// Puts `new` with `timer` under its key, cancels the timer it replaces, then starts `timer`.
    ///
    /// - Parameters:
    ///   - new: The entry from ``newEntry(forKey:of:handler:)``.
    ///   - timer: The timer that runs the entry's handler.
    /// - Returns: Whether an entry was replaced.
    package func install<Event>(_ new: NewEntry<Event>, timer: Timer) -> Bool {
        let key = new.key
        let entry = Entry(id: new.id, timer: timer, targetIsAlive: new.targetIsAlive)
        let old = state.withLock { $0.entries.updateValue(entry, forKey: key) }
        old?.timer.cancel()
        entry.timer.startKeyed()
        // A concurrent install or removal of the same key may have displaced this entry between the swap and
        // `start()`; it cancelled the timer before we started it, so cancel again.
        if !isCurrent(key, id: entry.id) {
            entry.timer.cancel()
        }
        return old != nil
    }

    /// Removes the entry under `key` and returns it, without cancelling its timer.
    package func removeValue(forKey key: Key) -> Entry? {
        state.withLock { $0.entries.removeValue(forKey: key) }
    }

    /// Removes the entry under `key` if it is still the one with `id`, without cancelling its timer.
    package func remove(_ key: Key, id: UInt64) {
        let removed = state.withLock { state -> Entry? in
            guard state.entries[key]?.id == id else { return nil }
            return state.entries.removeValue(forKey: key)
        }
        withExtendedLifetime(removed) {}
    }

    /// Removes the entries whose weak target died or whose timer ended (``Entry/hasEnded``), each only if it is still
    /// under its key, and cancels their timers.
    ///
    /// Whether an entry has ended is read from its timer (under the timer's lock), so it is read outside the store's
    /// lock: the store never holds its lock while it takes a timer's (no lock order). Cancelling an ended timer stops
    /// one whose weak target died before its next tick; for the others it does nothing.
    package func prune() {
        let ended = entries.filter { $0.value.hasEnded }
        guard !ended.isEmpty else { return }
        let removed = state.withLock { state in
            ended.compactMap { key, entry in
                state.entries[key]?.id == entry.id ? state.entries.removeValue(forKey: key) : nil
            }
        }
        for entry in removed {
            entry.timer.cancel()
        }
    }

    /// Removes every entry and cancels its timer.
    package func removeAll() {
        let removed = state.withLock { state in
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for entry in removed {
            entry.timer.cancel()
        }
    }
}
