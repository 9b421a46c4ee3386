import TempoLocks

/// A keyed delay queue: values due at an instant, moved or removed by key, and taken with `for await` once due.
///
/// ```swift
/// let retries = try DelayQueue<RequestID, Request>()
/// try retries.insert(request, forKey: request.id, after: .seconds(2))
/// for await due in retries.expired {
///     send(due.value)
/// }
/// ```
///
/// **Timing.** Each entry has a ``TimingWheel`` timer. It becomes due at the first tick boundary at or after its
/// deadline: never early, at most one ``TimingWheel/Configuration/resolution`` late plus the scheduler's latency. A
/// deadline that has passed is due in the wheel's next batch. Due entries leave the queue and are appended to
/// ``expired`` in deadline order; equal deadlines in the order their keys were first inserted: an ``insert(_:forKey:at:)``
/// or ``reschedule(_:at:)`` of a key that still waits keeps that key's place among equal deadlines (as
/// ``TimingWheel/reschedule(_:at:)`` does), so it is not moved behind keys inserted after it. An entry removed or
/// moved before it is due is not delivered at its old deadline. Each entry is delivered at most once.
///
/// **Consuming.** ``expired`` is an `AsyncStream` for one consumer; it buffers due entries until they are taken,
/// and finishes when the queue is released (after the entries already due). Cancelling the consuming task ends its
/// `for await` at once.
///
/// Thread-safety: every method may be called from any thread and any task, including while ``expired`` is consumed.
public final class DelayQueue<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// An entry that came due.
    public struct Expired: Sendable {
        /// The entry's key.
        public let key: Key
        /// The entry's value.
        public let value: Value
        /// The deadline it was due at, on the queue's clock.
        public let deadline: TimerDeadline
    }

    struct Payload {
        var value: Value
        var deadline: TimerInstant
    }

    /// Receives the wheel's timers: removes the due entry and yields it to the stream, outside the lock.
    final class Expirer: TimingWheelHandler {
        let state = TempoMutex(WheelKeyTable<Key, Payload>())
        let continuation: AsyncStream<Expired>.Continuation
        /// The queue's clock, which every stored deadline is on.
        let clock: TimerClock

        init(continuation: AsyncStream<Expired>.Continuation, clock: TimerClock) {
            self.continuation = continuation
            self.clock = clock
        }

        func timerFired(value token: UInt64) {
            let due = state.withLock { table -> Expired? in
                guard let slot = table.resolve(token) else { return nil }
                let entry = table.remove(slot)
                return Expired(
                    key: entry.key, value: entry.payload.value,
                    deadline: TimerDeadline(entry.payload.deadline, clock: clock))
            }
            if let due { continuation.yield(due) }
        }
    }

    let expirer: Expirer
    /// The wheel that runs the deadlines.
    ///
    /// For reading (its ``TimingWheel/count`` and configuration) only: do not arm timers of your own on it. Every
    /// value timer of this wheel reaches this type's handler, which reads the value as one of its own entries.
    public let wheel: TimingWheel
    /// The entries as they come due, for one consumer.
    ///
    /// - Precondition: Only one task iterates the stream at a time (`AsyncStream` traps on a second concurrent
    ///   `next()`).
    public let expired: AsyncStream<Expired>

    /// Creates an empty queue on a wheel of its own.
    ///
    /// - Parameters:
    ///   - configuration: The wheel's tick (the resolution; default 1 ms), clock and delivery.
    ///   - scheduler: What drives the wheel: ``SystemScheduler/shared`` or, in tests, a `VirtualClock`.
    /// - Throws: ``TempoError`` when the configuration is invalid; see ``TimingWheel/Configuration/validate()``.
    public init(
        configuration: TimingWheel.Configuration = TimingWheel.Configuration(),
        scheduler: any TimerScheduler = SystemScheduler.shared
    ) throws(TempoError) {
        let (stream, continuation) = AsyncStream.makeStream(of: Expired.self)
        expired = stream
        expirer = Expirer(continuation: continuation, clock: configuration.clock)
        wheel = try TimingWheel(configuration: configuration, scheduler: scheduler, handler: expirer)
    }

    deinit {
        expirer.continuation.finish()
    }

    /// The number of entries not yet due (not counting those waiting in ``expired``).
    ///
    /// - Complexity: O(1).
    public var count: Int {
        expirer.state.withLock { $0.count }
    }

    /// Inserts `value` for `key`, due at `deadline` (an instant that knows its clock); replaces a previous entry of
    /// `key`.
    ///
    /// A deadline on another clock than the queue's (``TimingWheel/Configuration/clock``) is converted once, now:
    /// the entry is due when the queue's clock has moved as far as the deadline's clock still has to go to it.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - deadline: When the entry is due, on its own clock.
    /// - Returns: The value the entry replaced, if any (it will not be delivered).
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when the deadline is out of the wheel's
    ///   range (the queue is unchanged).
    /// - Complexity: O(1) amortized.
    @discardableResult
    public func insert(_ value: Value, forKey key: Key, at deadline: TimerDeadline) throws(TempoError) -> Value? {
        try insert(value, forKey: key, deadline: try onQueueClock(deadline))
    }

    /// Inserts `value` for `key`, due `delay` from now; replaces a previous entry of `key`.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: The key.
    ///   - delay: How long from now on the queue's clock, from zero (due at once) to
    ///     292 years (`Int64.max` ns).
    /// - Returns: The value the entry replaced, if any.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a negative delay or one above
    ///   292 years (`Int64.max` ns) (the queue is unchanged).
    /// - Complexity: O(1) amortized.
    @discardableResult
    public func insert(_ value: Value, forKey key: Key, after delay: Duration) throws(TempoError) -> Value? {
        try TempoError.validateDelay(delay)
        return try insert(value, forKey: key, deadline: wheel.now + delay)
    }

    /// Moves the entry of `key` to `deadline` (converted to the queue's clock as in ``insert(_:forKey:at:)``).
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - deadline: The new deadline, on its own clock.
    /// - Returns: `true` if the entry was waiting and now has the new deadline; `false` if there is none.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` for an out-of-range deadline.
    /// - Complexity: O(1).
    @discardableResult
    public func reschedule(_ key: Key, at deadline: TimerDeadline) throws(TempoError) -> Bool {
        try reschedule(key, deadline: try onQueueClock(deadline))
    }

    /// Moves the entry of `key` to `delay` from now.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - delay: How long from now, from zero (due at once) to 292 years (`Int64.max` ns).
    /// - Returns: `true` if the entry was waiting; `false` if there is none.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a negative delay or one above
    ///   292 years (`Int64.max` ns).
    /// - Complexity: O(1).
    @discardableResult
    public func reschedule(_ key: Key, after delay: Duration) throws(TempoError) -> Bool {
        try TempoError.validateDelay(delay)
        return try reschedule(key, deadline: wheel.now + delay)
    }

    /// Removes the entry of `key`; it will not be delivered.
    ///
    /// - Parameter key: The key.
    /// - Returns: The removed value, or `nil` when no entry of `key` waits (it may already be in ``expired``).
    /// - Complexity: O(1).
    @discardableResult
    public func remove(_ key: Key) -> Value? {
        let wheel = wheel
        return expirer.state.withLock { $0.remove(key, cancellingOn: wheel)?.value }
    }

    /// The deadline of the entry of `key` on the queue's clock, or `nil` when none waits.
    ///
    /// - Parameter key: The key.
    /// - Returns: The deadline.
    /// - Complexity: O(1).
    public func deadline(of key: Key) -> TimerDeadline? {
        let deadline = expirer.state.withLock { table in table.slot(of: key).map { table[$0].payload.deadline } }
        return deadline.map { TimerDeadline($0, clock: expirer.clock) }
    }

    // MARK: Internals

    /// `deadline` on the queue's clock (see ``TimingWheel/schedule(at:value:)``).
    private func onQueueClock(_ deadline: TimerDeadline) throws(TempoError) -> TimerInstant {
        try wheel.onWheelClock(deadline)
    }

    private func insert(_ value: Value, forKey key: Key, deadline: TimerInstant) throws(TempoError) -> Value? {
        try expirer.state.withLock { table throws(TempoError) -> Value? in
            try table.upsert(key, Payload(value: value, deadline: deadline), .at(deadline), on: wheel)?.value
        }
    }

    private func reschedule(_ key: Key, deadline: TimerInstant) throws(TempoError) -> Bool {
        try expirer.state.withLock { table throws(TempoError) -> Bool in
            guard let slot = table.slot(of: key) else { return false }
            try table.rearm(slot, .at(deadline), on: wheel)
            table[slot].payload.deadline = deadline
            return true
        }
    }

    /// Checks the queue's and its wheel's invariants; traps when one is broken. A no-op in release builds. Call it
    /// only while no expiry is being delivered.
    ///
    /// - Complexity: O(count) in debug builds.
    package func _checkInvariants() {
        WheelKeyTable._checkInvariants(of: expirer.state, armedOn: wheel)
    }
}
