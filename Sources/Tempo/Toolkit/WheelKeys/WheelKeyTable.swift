import TempoLocks

/// Keys with one wheel timer each: the shared store of ``ExpiringDictionary``, ``DelayQueue`` and
/// ``KeyedRateLimiter``.
///
/// A key's entry lives in a slot of a reused table; the dictionary maps the key to its slot. The wheel timer of a slot
/// carries a token, `generation << 32 | slot`, and every change that makes a pending firing stale (removing the key,
/// re-arming its timer after the wheel took the old one for firing) bumps the slot's generation, so a firing that
/// raced with such a change resolves to nothing. An entry therefore ends exactly once: removed, or expired.
///
/// Not thread-safe: the owner keeps it under its lock, and arms the wheel under that lock (lock order: owner, wheel;
/// the wheel calls its handler outside its own lock).
@usableFromInline
struct WheelKeyTable<Key: Hashable, Payload> {
    @usableFromInline
    struct Entry {
        @usableFromInline var key: Key
        @usableFromInline var payload: Payload
        @usableFromInline var handle: TimingWheel.Handle

        @inlinable
        init(key: Key, payload: Payload, handle: TimingWheel.Handle) {
            self.key = key
            self.payload = payload
            self.handle = handle
        }
    }

    /// Slot of each key.
    @usableFromInline var slots: [Key: UInt32] = [:]
    /// Entries by slot; `nil` for a free slot.
    @usableFromInline var entries: ContiguousArray<Entry?> = []
    /// The generation of each slot, bumped when a pending firing of it becomes stale.
    @usableFromInline var generations: ContiguousArray<UInt32> = []
    /// Free slots, reused last-in first-out.
    @usableFromInline var free: [UInt32] = []

    @usableFromInline init() {}

    @inlinable var count: Int { slots.count }

    @inlinable
    func slot(of key: Key) -> UInt32? {
        slots[key]
    }

    @inlinable
    subscript(slot: UInt32) -> Entry {
        get { entries[Int(slot)]! }
        _modify { yield &entries[Int(slot)]! }
    }

    /// The token a wheel timer of `slot` carries now.
    @inlinable
    func token(_ slot: UInt32) -> UInt64 {
        UInt64(generations[Int(slot)]) << 32 | UInt64(slot)
    }

    /// The slot a firing token names, or `nil` when the firing is stale.
    @inlinable
    func resolve(_ token: UInt64) -> UInt32? {
        let slot = UInt32(truncatingIfNeeded: token)
        guard Int(slot) < entries.count, entries[Int(slot)] != nil,
            generations[Int(slot)] == UInt32(truncatingIfNeeded: token >> 32)
        else { return nil }
        return slot
    }

    /// Makes pending firings of `slot` stale and returns the token for its next timer.
    @inlinable
    mutating func renew(_ slot: UInt32) -> UInt64 {
        generations[Int(slot)] &+= 1
        return token(slot)
    }

    /// When a slot's timer is due: at an instant, or after a delay from now (the wheel's cheaper relative arm).
    @usableFromInline
    enum Due {
        case at(TimerInstant)
        case after(Duration)
    }

    /// Moves the timer of `slot` on `wheel`; when the wheel already took it for firing, makes that firing stale and
    /// arms a new timer.
    @inlinable
    mutating func rearm(_ slot: UInt32, _ due: Due, on wheel: TimingWheel) throws(TempoError) {
        let moved: Bool
        switch due {
        case .at(let deadline): moved = try wheel.reschedule(self[slot].handle, at: deadline)
        case .after(let delay): moved = try wheel.reschedule(self[slot].handle, after: delay)
        }
        if !moved { self[slot].handle = try Self.arm(due, token: renew(slot), on: wheel) }
    }

    /// Gives `key` the payload `payload` and a timer due at `due`: moves the key's timer when it has one, and
    /// otherwise takes a slot and arms one. On a throw the table is unchanged.
    ///
    /// - Returns: The key's previous payload, if it had one.
    @inlinable
    mutating func upsert(_ key: Key, _ payload: Payload, _ due: Due, on wheel: TimingWheel) throws(TempoError)
        -> Payload?
    {
        guard let slot = slot(of: key) else {
            try insert(key, payload) { token throws(TempoError) in try Self.arm(due, token: token, on: wheel) }
            return nil
        }
        try rearm(slot, due, on: wheel)
        defer { self[slot].payload = payload }
        return self[slot].payload
    }

    /// Arms a timer carrying `token` on `wheel`.
    @inlinable
    static func arm(_ due: Due, token: UInt64, on wheel: TimingWheel) throws(TempoError) -> TimingWheel.Handle {
        switch due {
        case .at(let deadline): try wheel.schedule(at: deadline, value: token)
        case .after(let delay): try wheel.schedule(after: delay, value: token)
        }
    }

    /// Takes a slot for `key` (not yet in the table) and arms its timer with `arm`, which receives the token; on a
    /// throw nothing is kept.
    @discardableResult
    @inlinable
    mutating func insert<E: Error>(
        _ key: Key, _ payload: Payload, arm: (UInt64) throws(E) -> TimingWheel.Handle
    ) throws(E) -> UInt32 {
        let slot: UInt32
        if let reused = free.popLast() {
            slot = reused
        } else {
            slot = UInt32(entries.count)
            entries.append(nil)
            generations.append(0)
        }
        let handle: TimingWheel.Handle
        do {
            handle = try arm(token(slot))
        } catch {
            free.append(slot)
            throw error
        }
        entries[Int(slot)] = Entry(key: key, payload: payload, handle: handle)
        slots[key] = slot
        return slot
    }

    /// Frees `slot` and returns its entry; its pending firing, if any, becomes stale. The caller cancels its timer.
    @discardableResult
    @inlinable
    mutating func remove(_ slot: UInt32) -> Entry {
        let entry = entries[Int(slot)].take()!
        slots[entry.key] = nil
        generations[Int(slot)] &+= 1
        free.append(slot)
        return entry
    }

    /// Removes `key` and cancels its timer on `wheel`.
    ///
    /// - Returns: The key's payload, or `nil` when the table does not hold it.
    @inlinable
    mutating func remove(_ key: Key, cancellingOn wheel: TimingWheel) -> Payload? {
        guard let slot = slot(of: key) else { return nil }
        let entry = remove(slot)
        wheel.cancel(entry.handle)
        return entry.payload
    }

    /// Checks that the dictionary and the slots agree; traps otherwise.
    func _checkInvariants() {
        precondition(slots.count + free.count == entries.count, "slots \(slots.count) + free \(free.count)")
        for (key, slot) in slots {
            precondition(entries[Int(slot)]?.key == key, "slot \(slot) does not hold its key")
        }
        for slot in free { precondition(entries[Int(slot)] == nil, "free slot \(slot) holds an entry") }
    }

    /// Checks ``_checkInvariants()`` and that every entry's timer is armed on `wheel`; traps otherwise. The keyed
    /// toolkit types call it under their lock, while no expiry is being delivered.
    func _checkInvariants(armedOn wheel: TimingWheel) {
        _checkInvariants()
        for slot in slots.values {
            precondition(wheel.isArmed(self[slot].handle), "the entry in slot \(slot) has no armed timer")
        }
    }

    /// The `_checkInvariants()` of the keyed toolkit types: the table under its lock, then the wheel. A no-op in
    /// release builds.
    static func _checkInvariants(of state: borrowing TempoMutex<Self>, armedOn wheel: TimingWheel) {
        #if DEBUG
        state.withLock { $0._checkInvariants(armedOn: wheel) }
        wheel._checkInvariants()
        #endif
    }
}
