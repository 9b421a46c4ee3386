// Inlinable code calls `TempoMutex.withLock`: `Synchronization.Mutex`'s, except in the TSanVisibleLocks build.
#if TEMPO_TSAN_VISIBLE_LOCKS
public import TempoLocks
#else
public import Synchronization
#endif

/// One rate limiter per key (a client, an IP address, an API token), whose idle keys are forgotten on a timing wheel.
///
/// ```swift
/// let perClient = try KeyedRateLimiter<ClientID>(RateLimit(permits: 10, every: .seconds(1)))
/// guard perClient.tryAcquire(client) else { return .tooManyRequests }
/// ```
///
/// Each key gets its own ``RateLimit`` bucket, with the same exact arithmetic and timing as ``RateLimiter``. A key
/// whose bucket has refilled completely is equal to a key never seen, so the limiter forgets it then, on a
/// ``TimingWheel`` timer: a new key's timer is armed for the instant its bucket will be full, and an admission only
/// stores the bucket's new state (it does not move the timer). When the timer fires (at the first tick at or after
/// its deadline), a key whose bucket is full is dropped, and a key admitted since is kept and its timer armed again
/// for the instant its bucket will now be full. Forgetting therefore never changes an answer; memory holds only keys
/// that were active within about `burst · period / permits` (plus one tick); and a key admitted without pause costs
/// one timer firing per refill time, not a timer move per admission. A bucket that refills past the wheel's range
/// (more than `Int64.max` nanoseconds, about 292 years, after the limiter was created: a rate of one permit per
/// century, say) is forgotten at the end of that range, the last instant the wheel can wait for.
///
/// **Cancellation.** Cancelling a task in ``acquire(_:)`` disarms its wait and throws `CancellationError` at once.
///
/// Thread-safety: every method may be called from any thread or task; the wheel forgets keys outside its lock.
public final class KeyedRateLimiter<Key: Hashable & Sendable>: Sendable {
    /// Receives the wheel's timers: forgets the keys that have refilled. A key's payload is its theoretical arrival
    /// time; the context is the limit's arithmetic and the origin of its time.
    @usableFromInline typealias Evictor = WheelKeyBatchHandler<Key, Int128, Eviction>

    /// What the evictor needs to tell a full bucket from one still filling.
    @usableFromInline
    struct Eviction: Sendable {
        @usableFromInline let gcra: GCRA
        @usableFromInline let origin: TimerInstant

        @inlinable
        init(gcra: GCRA, origin: TimerInstant) {
            self.gcra = gcra
            self.origin = origin
        }
    }

    /// Under one lock, forgets the keys that `tokens` name whose bucket is full, and arms the timer of each key
    /// admitted since its timer was armed again, for the instant its bucket will now be full (stale tokens are
    /// skipped).
    @inlinable
    static func evict(_ evictor: Evictor, _ wheel: TimingWheel, _ tokens: UnsafeBufferPointer<UInt64>) {
        let gcra = evictor.context.gcra
        let origin = evictor.context.origin
        let now = wheel.now
        let latest = wheel.latestDeadline
        // At the end of the wheel's range it can wait no longer: every key it names is forgotten.
        let atEnd = now >= latest
        let scaledNow = gcra.scaled(now - origin)
        evictor.state.withLock { table in
            var homes = WheelKeyHomes()
            for (index, token) in tokens.enumerated() {
                table.prefetch(tokens.keyedPrefetchTokens(at: index), at: index, homes: &homes)
                guard let slot = table.resolve(token) else { continue }
                let tat = table.row(slot).pointee.payload
                // Full (equal to a new bucket) once its theoretical arrival time is not after now.
                if tat <= scaledNow || atEnd {
                    table.remove(slot, home: homes[index])
                    continue
                }
                // In range (clamped to the wheel's end), so it cannot throw.
                try? table.rearm(slot, .at(min(origin + gcra.refilled(tat), latest)), on: wheel)
            }
        }
    }

    /// The rate of each key.
    public let limit: RateLimit
    /// The wheel that forgets idle keys.
    ///
    /// For reading (its ``TimingWheel/count`` and configuration) only: do not arm timers of your own on it. Every
    /// value timer of this wheel reaches this type's handler, which reads the value as one of its own entries.
    public let wheel: TimingWheel
    @usableFromInline let evictor: Evictor
    @usableFromInline let gcra: GCRA
    @usableFromInline let origin: TimerInstant

    /// Creates a limiter that knows no key yet.
    ///
    /// - Parameters:
    ///   - limit: The rate of each key.
    ///   - configuration: The wheel's tick (how soon after refilling a key is forgotten), clock (the one permits are
    ///     measured on) and delivery.
    ///   - scheduler: What reads time and drives the wheel: ``SystemScheduler/shared`` or a `VirtualClock`.
    /// - Throws: ``TempoError`` when the configuration is invalid; see ``TimingWheel/Configuration/validate()``.
    @inlinable
    public init(
        _ limit: RateLimit,
        configuration: TimingWheel.Configuration = TimingWheel.Configuration(),
        scheduler: any TimerScheduler = SystemScheduler.shared
    ) throws(TempoError) {
        self.limit = limit
        let gcra = GCRA(limit)
        let origin = scheduler.now(configuration.clock)
        self.gcra = gcra
        self.origin = origin
        evictor = Evictor(context: Eviction(gcra: gcra, origin: origin)) { Self.evict($0, $1, $2) }
        wheel = try TimingWheel(configuration: configuration, scheduler: scheduler, handler: evictor)
    }

    /// The number of keys held: those whose bucket has not refilled yet.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var count: Int {
        evictor.state.withLock { $0.count }
    }

    /// Takes one permit of `key` if one is free now.
    ///
    /// - Parameter key: The key.
    /// - Returns: `true` if the permit was taken; `false` if none is free (nothing changes).
    /// - Complexity: O(1) amortized; allocates nothing in steady state (only when more keys are held than ever).
    @inlinable
    public func tryAcquire(_ key: Key) -> Bool {
        // The bucket's miss overlaps the clock read and taking the lock (see `WheelKeyTable.prefetchBucket`).
        let hash = key.hashValue
        Evictor.Table.prefetchBucket(hash: hash, hint: evictor.indexHint)
        return take(key, hash: hash, at: wheel.now) == nil
    }

    /// Takes one permit of `key`, waiting until one is free.
    ///
    /// - Parameter key: The key.
    /// - Throws: `CancellationError` when the task is or gets cancelled (at once; no permit is taken).
    public func acquire(_ key: Key) async throws {
        let sleeper = TempoClock(wheel.configuration.clock, scheduler: wheel.scheduler)
        while true {
            try Task.checkCancellation()
            guard let ready = take(key, hash: key.hashValue, at: wheel.now) else { return }
            try await sleeper.sleep(until: origin + ready)
        }
    }

    /// Admits one permit of `key` (whose `hashValue` is `hash`) at `now`: `nil` when admitted, else when the next
    /// permit is free (since the origin).
    @inlinable
    func take(_ key: Key, hash: Int, at now: TimerInstant) -> Duration? {
        let scaledNow = gcra.scaled(now - origin)
        let wheel = wheel
        let origin = origin
        let evictor = evictor
        return evictor.state.withLock { table -> Duration? in
            table.reserveOne()
            let (bucket, found, tag) = table.find(key, hash: hash)
            guard let slot = found else {
                // A new key is a full bucket: the first permit is always free.
                let tat = gcra.admit(scaledNow, now: scaledNow)!
                // Past the wheel's range (292 years), at its end: `refilled` is then in range and neither closure
                // below throws.
                let refilled = min(origin + gcra.refilled(tat), wheel.latestDeadline)
                _ = try? table.insert(key, tat, at: bucket, tag: tag) { token throws(TempoError) in
                    try wheel.armKeyed(.at(refilled), value: token)
                }
                // The insert may have rebuilt the index.
                table.publish(to: evictor.indexHint)
                return nil
            }
            let row = table.row(slot)
            guard let tat = gcra.admit(row.pointee.payload, now: scaledNow) else {
                return gcra.ready(row.pointee.payload)
            }
            // The key's timer stays where it is, never after the instant this bucket will be full: when it fires, the
            // evictor arms it again for that instant (see `evict`).
            row.pointee.payload = tat
            return nil
        }
    }

    /// Checks the limiter's and its wheel's invariants; traps when one is broken. A no-op in release builds. Call it
    /// only while no key is being forgotten.
    ///
    /// - Complexity: O(count) in debug builds.
    package func _checkInvariants() {
        WheelKeyTable._checkInvariants(of: evictor.state, armedOn: wheel)
    }
}
