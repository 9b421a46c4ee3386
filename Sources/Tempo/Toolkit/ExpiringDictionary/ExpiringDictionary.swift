// Inlinable code calls `TempoMutex.withLock`: `Synchronization.Mutex`'s, except in the TSanVisibleLocks build.
#if TEMPO_TSAN_VISIBLE_LOCKS
public import TempoLocks
#else
public import Synchronization
#endif

/// A dictionary whose entries expire: each value has a time to live, reading it never extends it, and
/// ``touch(_:)`` slides it (a session, a cache line, an idempotency key).
///
/// ```swift
/// let sessions = try ExpiringDictionary<String, Session> { token, session in
///     log("session \(token) of \(session.user) expired")
/// }
/// try sessions.updateValue(session, forKey: token, expiringAfter: .seconds(30 * 60))
/// sessions.touch(token)                      // each request: 30 more minutes
/// ```
///
/// **Expiry.** Each entry has a ``TimingWheel`` timer, due its time to live after it was last set or touched. The
/// wheel expires the entry at the first tick boundary at or after that deadline: never early, at most one
/// ``TimingWheel/Configuration/resolution`` late plus the scheduler's latency. Until then the entry is readable; once
/// expired it is gone and `onExpire` is called with its key and value, exactly once. An entry that is removed or
/// replaced does not expire (its `onExpire` is not called); one touched or replaced while its expiry is being
/// delivered stays, with its new deadline. Expiry work is proportional to the entries that expire: the wheel never
/// visits entries that are not due. Touching, or replacing with a deadline no earlier than the entry's, only stores
/// the new deadline in the entry: its timer stays where it was, and when it fires, an entry whose deadline has not
/// come is kept and its timer armed again for that deadline (so an entry touched without pause costs one timer
/// firing per time to live, not a timer move per touch).
///
/// **Observing expiry.** `onExpire` is a callback, called outside the dictionary's lock on the wheel's
/// ``TimingWheel/Configuration/delivery`` (a serial lane by default: expiries never overlap and arrive in deadline
/// order), so it may call any method of this dictionary. A callback rather than an `AsyncSequence`: nothing
/// buffers expired entries when nobody listens.
///
/// Thread-safety: every method may be called from any thread, including from `onExpire`. Releasing the dictionary
/// cancels its pending expiries without calling `onExpire`.
public final class ExpiringDictionary<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Called once for each entry that expires, with its key and value.
    public typealias ExpiryHandler = @Sendable (Key, Value) -> Void

    /// A key's value, its time to live in nanoseconds (rounded up) and its deadline in nanoseconds since the wheel's
    /// origin, or ``timerDeadline`` until it is touched or replaced: 16 bytes beside the value, where two `Duration`s
    /// would take 32 and align the row to 16. The key's timer is armed no later than `deadline` (touching moves only
    /// `deadline`).
    @usableFromInline typealias Payload = (value: Value, ttl: Int64, deadline: Int64)

    /// Receives the wheel's timers: removes the expired entries, then calls `onExpire` (its context) outside the lock.
    @usableFromInline typealias Expirer = WheelKeyBatchHandler<Key, Payload, ExpiryHandler>

    /// Under one lock, removes the entries that `tokens` name whose deadline has come, and arms the timer of each
    /// entry touched since its timer was armed again, for its deadline (stale tokens are skipped); then calls
    /// `onExpire` for each removed entry outside the lock, in order.
    @inlinable
    static func expire(_ expirer: Expirer, _ wheel: TimingWheel, _ tokens: UnsafeBufferPointer<UInt64>) {
        let now = wheel.keyedNowRoundedDown()
        withUnsafeTemporaryAllocation(of: (Key, Value).self, capacity: tokens.count) { expired in
            guard let first = expired.baseAddress else { return }
            let count = expirer.state.withLock { table -> Int in
                var count = 0
                var homes = WheelKeyHomes()
                for (index, token) in tokens.enumerated() {
                    table.prefetch(tokens.keyedPrefetchTokens(at: index), at: index, homes: &homes)
                    guard let slot = table.resolve(token) else { continue }
                    let deadline = table.row(slot).pointee.payload.deadline
                    if deadline > now {
                        // A deadline in nanoseconds since the origin is in the wheel's range: this cannot throw.
                        try? table.rearm(slot, .atNanoseconds(deadline), on: wheel)
                        continue
                    }
                    let entry = table.remove(slot, home: homes[index])
                    (first + count).initialize(to: (entry.key, entry.payload.value))
                    count += 1
                }
                return count
            }
            let onExpire = expirer.context
            for index in 0..<count {
                let (key, value) = (first + index).move()
                onExpire(key, value)
            }
        }
    }

    @usableFromInline let expirer: Expirer
    /// The wheel that runs the expiries.
    ///
    /// For reading (its ``TimingWheel/count`` and configuration) only: do not arm timers of your own on it. Every
    /// value timer of this wheel reaches this type's handler, which reads the value as one of its own entries.
    public let wheel: TimingWheel

    /// Creates an empty dictionary whose entries expire on a wheel of its own.
    ///
    /// - Parameters:
    ///   - configuration: The wheel's tick (the expiry resolution; default 1 ms), clock and delivery.
    ///   - scheduler: What drives the wheel: ``SystemScheduler/shared`` or, in tests, a `VirtualClock`.
    ///   - onExpire: Called once per expired entry, outside the lock, on the wheel's delivery.
    /// - Throws: ``TempoError`` when the configuration is invalid; see ``TimingWheel/Configuration/validate()``.
    @inlinable
    public init(
        configuration: TimingWheel.Configuration = TimingWheel.Configuration(),
        scheduler: any TimerScheduler = SystemScheduler.shared,
        onExpire: @escaping ExpiryHandler = { _, _ in }
    ) throws(TempoError) {
        expirer = Expirer(context: onExpire) { Self.expire($0, $1, $2) }
        wheel = try TimingWheel(configuration: configuration, scheduler: scheduler, handler: expirer)
    }

    /// The number of entries (not yet expired or removed).
    ///
    /// - Complexity: O(1).
    @inlinable
    public var count: Int {
        expirer.state.withLock { $0.count }
    }

    /// Sets `value` for `key`, to expire `ttl` from now; replaces (and no longer expires) a previous value.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - ttl: The time to live, from now on the wheel's clock; also what ``touch(_:)`` extends by (rounded up to
    ///     the nanosecond). Positive.
    /// - Returns: The previous value of `key`, if any.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` naming `ttl` when it is not positive, is
    ///   below 1 ns or above 292 years (`Int64.max` ns), or ends past the wheel's range (its deadline would lie
    ///   more than 292 years (`Int64.max` ns) after the dictionary was created); the dictionary is then
    ///   unchanged.
    /// - Complexity: O(1) amortized; allocates only when the dictionary holds more entries than ever before.
    @discardableResult
    @inlinable
    public func updateValue(_ value: Value, forKey key: Key, expiringAfter ttl: Duration) throws(TempoError) -> Value? {
        let wheel = wheel
        let expirer = expirer
        // The bucket's miss overlaps checking `ttl`, the clock read and taking the lock (see
        // `WheelKeyTable.prefetchBucket`). The reading serves a present key (a new one's timer is armed relative to the
        // wheel's now).
        let hash = key.hashValue
        Expirer.Table.prefetchBucket(hash: hash, hint: expirer.indexHint)
        let nanoseconds = try Self.validate(ttl: ttl)
        let now = wheel.keyedNow()
        return try expirer.state.withLock { table throws(TempoError) -> Value? in
            table.reserveOne()
            let (bucket, found, tag) = table.find(key, hash: hash)
            guard let slot = found else {
                // A new key: its deadline is its timer's (`Self.timerDeadline`), armed relative to now without a clock
                // read on a busy wheel.
                do throws(TempoError) {
                    try table.insert(key, (value, nanoseconds, Self.timerDeadline), at: bucket, tag: tag) {
                        token throws(TempoError) in
                        try wheel.armKeyed(.after(ttl), value: token)
                    }
                } catch {
                    throw Self.ttlError(ttl, error)
                }
                // The insert may have rebuilt the index.
                table.publish(to: expirer.indexHint)
                return nil
            }
            let (deadline, overflow) = now.addingReportingOverflow(nanoseconds)
            if overflow { throw Self.pastRange(ttl, on: wheel) }
            let row = table.row(slot)
            // A deadline no earlier than the entry's is only stored (its timer, armed no later, re-arms when it fires);
            // an earlier one moves the timer. A deadline that is still its timer's is no earlier when the time to live
            // is no shorter (it was armed that time to live from an earlier now). In range: this cannot throw.
            let current = row.pointee.payload.deadline
            let later = current == Self.timerDeadline ? nanoseconds >= row.pointee.payload.ttl : deadline >= current
            if !later { try? table.rearm(slot, .atNanoseconds(deadline), on: wheel) }
            defer { row.pointee.payload = (value, nanoseconds, deadline) }
            return row.pointee.payload.value
        }
    }

    /// The value of `key`, if it has not expired or been removed. Does not extend its life.
    ///
    /// - Parameter key: The key.
    /// - Returns: The value, or `nil`.
    /// - Complexity: O(1).
    @inlinable
    public func value(forKey key: Key) -> Value? {
        // The bucket's miss overlaps taking the lock (see `WheelKeyTable.prefetchBucket(hash:hint:)`).
        let hash = key.hashValue
        Expirer.Table.prefetchBucket(hash: hash, hint: expirer.indexHint)
        return expirer.state.withLock { table in
            table.find(key, hash: hash).slot.map { table.row($0).pointee.payload.value }
        }
    }

    /// Slides the expiry of `key` to its time to live from now.
    ///
    /// A time to live accepted when the entry was set may, from a later now, end past the wheel's range (more than
    /// 292 years (`Int64.max` ns), about 292 years, after the dictionary was created): the entry is then due at
    /// the end of that range, the last instant the wheel can wait for, and `touch` still returns `true`.
    ///
    /// - Parameter key: The key.
    /// - Returns: `true` if the entry was present (it now expires later), `false` if it had expired or was never
    ///   set.
    /// - Complexity: O(1); allocates nothing.
    @discardableResult
    @inlinable
    public func touch(_ key: Key) -> Bool {
        // The bucket's miss overlaps the clock read and taking the lock (see `WheelKeyTable.prefetchBucket`).
        let hash = key.hashValue
        Expirer.Table.prefetchBucket(hash: hash, hint: expirer.indexHint)
        let now = wheel.keyedNow()
        return expirer.state.withLock { table in
            guard let slot = table.find(key, hash: hash).slot else { return false }
            let row = table.row(slot)
            // Past the wheel's range: its last instant (the timer, armed no later, re-arms for it when it fires).
            let (deadline, overflow) = now.addingReportingOverflow(row.pointee.payload.ttl)
            row.pointee.payload.deadline = overflow ? .max : deadline
            return true
        }
    }

    /// Removes `key` and its expiry; `onExpire` is not called for it.
    ///
    /// - Parameter key: The key.
    /// - Returns: The removed value, or `nil` if there was none.
    /// - Complexity: O(1).
    @discardableResult
    @inlinable
    public func removeValue(forKey key: Key) -> Value? {
        let wheel = wheel
        return expirer.state.withLock { $0.remove(key, cancellingOn: wheel)?.value }
    }

    /// The deadline of an entry whose deadline is its timer's (set, and neither touched nor replaced since): it
    /// expires when the timer fires.
    @inlinable
    static var timerDeadline: Int64 { .min }

    /// `error`, from arming a valid `ttl`, as the error of `ttl`: a deadline past the wheel's range
    /// (``TempoError/Code/invalidInstant``) means that `ttl` is too large to add to now.
    @usableFromInline
    static func ttlError(_ ttl: Duration, _ error: TempoError) -> TempoError {
        guard error.code == .invalidInstant else { return error }
        return TempoError(
            .invalidInterval, value: ttl.exactDescription,
            message: "ttl \(ttl.exactDescription) from now ends past the wheel's range: \(error.message)")
    }

    /// The error of a valid `ttl` that, from now, ends past the wheel's range: `ttl` is too large to add to now.
    @usableFromInline
    static func pastRange(_ ttl: Duration, on wheel: TimingWheel) -> TempoError {
        let reason =
            "deadline \(wheel.now + ttl) is more than \(TempoError.maximumDuration) from the wheel's origin \(wheel.origin)"
        return TempoError(
            .invalidInterval, value: ttl.exactDescription,
            message: "ttl \(ttl.exactDescription) from now ends past the wheel's range: \(reason)")
    }

    /// Throws unless `ttl` is a valid interval; returns it in nanoseconds, rounded up (called from inlinable code, so
    /// the check itself stays internal).
    @usableFromInline
    static func validate(ttl: Duration) throws(TempoError) -> Int64 {
        try TempoError.validateInterval(ttl, name: "ttl").nanoseconds(rounded: .up)
    }

    /// Checks the dictionary's and its wheel's invariants; traps when one is broken. A no-op in release builds. Call
    /// it only while no expiry is being delivered.
    ///
    /// - Complexity: O(count) in debug builds.
    package func _checkInvariants() {
        WheelKeyTable._checkInvariants(of: expirer.state, armedOn: wheel)
    }
}
