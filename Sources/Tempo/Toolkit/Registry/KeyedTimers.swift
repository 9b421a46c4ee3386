import TempoLocks

/// A timer that ``KeyedTimers`` starts when it is installed and cancels when it is replaced or removed.
package protocol KeyedTimer: AnyObject, Sendable {
    /// Starts the timer (named apart from `start()`, which ``TempoTimer`` returns itself from).
    func startKeyed()
    /// Cancels the timer; idempotent.
    func cancel()
}

extension TempoTimer: KeyedTimer {
    /// Starts the timer.
    package func startKeyed() { start() }
}

/// An entry of ``KeyedTimers``: a timer, and the id that tells it from the timers its key held before.
package protocol KeyedEntry: Sendable {
    /// The kind of timer.
    associatedtype Timer: KeyedTimer
    /// The entry's id, from ``KeyedTimers/makeID()``.
    var id: UInt64 { get }
    /// The entry's timer.
    var timer: Timer { get }
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
package final class KeyedTimers<Key: Hashable & Sendable, Entry: KeyedEntry>: Sendable {
    private struct State {
        var entries: [Key: Entry] = [:]
        var nextID: UInt64 = 1
    }

    private let state = TempoMutex(State())

    package init() {}

    /// A new entry id, for the timer about to be installed (its handler checks it with ``isCurrent(_:id:)``).
    package func makeID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Whether the entry under `key` is the one with `id`.
    package func isCurrent(_ key: Key, id: UInt64) -> Bool {
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

    /// Puts `entry` under `key`, cancels the timer it replaces, then starts `entry`'s timer.
    ///
    /// - Returns: Whether an entry was replaced.
    package func install(_ entry: Entry, forKey key: Key) -> Bool {
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

    /// Removes the entries that `hasEnded` picks, each only if it is still under its key, and returns them without
    /// cancelling their timers. `hasEnded` runs outside the store's lock.
    package func removeAll(where hasEnded: (Entry) -> Bool) -> [Entry] {
        let ended = entries.filter { hasEnded($0.value) }
        guard !ended.isEmpty else { return [] }
        return state.withLock { state in
            ended.compactMap { key, entry in
                state.entries[key]?.id == entry.id ? state.entries.removeValue(forKey: key) : nil
            }
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
