import Dispatch

/// A ``TimingWheel`` split into independent shards, so that threads arming timers at the same time do not wait
/// for one lock.
///
/// Each shard is a complete ``TimingWheel`` with its own table, lock and driver action. A thread arms on the
/// shard picked by its thread ordinal (threads take shards round-robin in the order they first arm), so two
/// threads that arm together usually touch different shards. ``cancel(_:)`` and ``reschedule(_:at:)`` go to the
/// shard that armed the timer, from any thread: the ``TimingWheel/Handle`` names it.
///
/// **Timing** is that of ``TimingWheel`` for every timer (never early; at most one tick late plus the
/// scheduler's latency, one more tick for ``schedule(after:value:)`` on ``SystemScheduler``). Timers of one
/// shard that are due together are delivered in deadline order, equal deadlines in arming order; timers of
/// different shards due at the same tick are delivered in separate batches, in no set order.
///
/// **Delivery.** With ``TimerDelivery/privateQueue`` the shards share one serial queue, so callbacks never
/// overlap; with ``TimerDelivery/queue(_:)`` they run on that queue (concurrently if it is concurrent); with
/// ``TimerDelivery/immediate`` on the scheduler's driver thread.
///
/// Thread-safety: every method may be called from any thread, including from a callback.
public final class ShardedTimingWheel: Sendable {
    /// The shards; a timer lives in the shard that armed it.
    let shards: [TimingWheel]
    /// The same shards, unretained (``shards`` keeps them alive): a call through them touches no reference count.
    /// That matters on the arming path, because a wheel's count lives in a side table (its driver references it
    /// weakly), where a retain and a release cost about as much as arming itself.
    let unretained: [Unmanaged<TimingWheel>]
    /// The shards' ids (``TimingWheel/id``), in shard order: a handle's shard is found without touching a shard's
    /// reference count (iterating ``shards`` retains and releases each shard it passes).
    let shardIDs: [UInt32]

    /// The largest number of shards accepted.
    public static let maximumShardCount = 64

    /// Creates a sharded wheel.
    ///
    /// - Parameters:
    ///   - configuration: The tick, clock and delivery of every shard; `initialCapacity` is shared out among them.
    ///   - shardCount: How many shards, from 1 to ``maximumShardCount``; `nil` (the default) for one per
    ///     processor, at least 2.
    ///   - scheduler: What drives the shards: ``SystemScheduler/shared`` or, in tests, a `VirtualClock`.
    ///   - handler: The receiver of timers armed with a value.
    /// - Throws: ``TempoError`` for an invalid configuration (see ``TimingWheel/Configuration/validate()``), or
    ///   with ``TempoError/Code/invalidCount`` for a `shardCount` outside 1...``maximumShardCount``.
    public init(
        configuration: TimingWheel.Configuration = TimingWheel.Configuration(),
        shardCount: Int? = nil,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: (any TimingWheelHandler)? = nil
    ) throws(TempoError) {
        let shardCount = shardCount ?? min(Self.maximumShardCount, max(2, DriverThread.activeProcessorCount))
        guard (1...Self.maximumShardCount).contains(shardCount) else {
            throw TempoError(
                .invalidCount, value: "\(shardCount)",
                message: "shardCount must be between 1 and \(Self.maximumShardCount), got \(shardCount)")
        }
        try configuration.validate()
        var shardConfiguration = configuration
        if case .privateQueue = configuration.delivery.kind {
            shardConfiguration.delivery = .queue(DispatchQueue(label: "Tempo.ShardedTimingWheel"))
        }
        shardConfiguration.initialCapacity = (configuration.initialCapacity + shardCount - 1) / shardCount
        var shards: [TimingWheel] = []
        for _ in 0..<shardCount {
            shards.append(try TimingWheel(configuration: shardConfiguration, scheduler: scheduler, handler: handler))
        }
        self.shards = shards
        unretained = shards.map { Unmanaged.passUnretained($0) }
        shardIDs = shards.map(\.id)
    }

    /// Runs `body` with the calling thread's shard, taking no reference on it.
    @inline(__always)
    func withLocal<Value>(_ body: (TimingWheel) throws(TempoError) -> Value) throws(TempoError) -> Value {
        let shard = unretained[ThreadOrdinal.current % unretained.count]
        return try shard._withUnsafeGuaranteedRef { wheel in
            Result { () throws(TempoError) in try body(wheel) }
        }.get()
    }

    /// The index of the shard that armed `handle`, or `nil` for a handle of another wheel.
    @inline(__always)
    func shardIndex(of handle: TimingWheel.Handle) -> Int? {
        var index = 0
        while index < shardIDs.count {
            if shardIDs[index] == handle.wheel { return index }
            index += 1
        }
        return nil
    }

    /// The shard that armed `handle`, or `nil` for a handle of another wheel.
    @inline(__always)
    func shard(of handle: TimingWheel.Handle) -> TimingWheel? {
        shardIndex(of: handle).map { shards[$0] }
    }

    /// The number of armed timers over all shards.
    ///
    /// - Complexity: O(shards); each shard's lock is taken in turn, so the sum is not one atomic snapshot.
    public var count: Int {
        shards.reduce(0) { $0 + $1.count }
    }

    /// The number of armed timers of each shard, for tests and diagnostics.
    package var shardCounts: [Int] {
        shards.map(\.count)
    }

    /// Arms a value timer at `deadline` on the calling thread's shard; see ``TimingWheel/schedule(at:value:)``.
    ///
    /// - Parameters:
    ///   - deadline: When the timer is due (another clock's deadline is converted as
    ///     ``TimingWheel/schedule(at:value:)`` says).
    ///   - value: The value handed to ``TimingWheelHandler/timerFired(value:)``.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:at:)``, valid from any thread.
    /// - Throws: ``TempoError`` as ``TimingWheel/schedule(at:value:)`` does.
    /// - Complexity: O(1); a shard's table grows by one fixed chunk when full.
    @discardableResult
    public func schedule(at deadline: TimerDeadline, value: UInt64) throws(TempoError) -> TimingWheel.Handle {
        try withLocal { wheel throws(TempoError) in try wheel.schedule(at: deadline, value: value) }
    }

    /// Arms a value timer `delay` from now on the calling thread's shard; see ``TimingWheel/schedule(after:value:)``.
    ///
    /// - Parameters:
    ///   - delay: How long from now, from zero (due at once) to 292 years (`Int64.max` ns).
    ///   - value: The value handed to ``TimingWheelHandler/timerFired(value:)``.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:after:)``, valid from any thread.
    /// - Throws: ``TempoError`` as ``TimingWheel/schedule(after:value:)`` does.
    /// - Complexity: O(1); a shard's table grows by one fixed chunk when full.
    @discardableResult
    public func schedule(after delay: Duration, value: UInt64) throws(TempoError) -> TimingWheel.Handle {
        try withLocal { wheel throws(TempoError) in try wheel.schedule(after: delay, value: value) }
    }

    /// Arms a closure timer at `deadline` on the calling thread's shard; see ``TimingWheel/schedule(at:_:)``.
    ///
    /// - Parameters:
    ///   - deadline: When the timer is due (another clock's deadline is converted as
    ///     ``TimingWheel/schedule(at:value:)`` says).
    ///   - action: The work to run on the delivery queue or driver thread.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:at:)``.
    /// - Throws: ``TempoError`` as ``TimingWheel/schedule(at:_:)`` does.
    /// - Complexity: O(1); a shard's table grows by one fixed chunk when full.
    @discardableResult
    public func schedule(at deadline: TimerDeadline, _ action: @escaping @Sendable () -> Void) throws(TempoError)
        -> TimingWheel.Handle
    {
        try withLocal { wheel throws(TempoError) in try wheel.schedule(at: deadline, action) }
    }

    /// Arms a closure timer `delay` from now on the calling thread's shard; see ``TimingWheel/schedule(after:_:)``.
    ///
    /// - Parameters:
    ///   - delay: How long from now, from zero (due at once) to 292 years (`Int64.max` ns).
    ///   - action: The work to run on the delivery queue or driver thread.
    /// - Returns: A handle for ``cancel(_:)`` and ``reschedule(_:after:)``.
    /// - Throws: ``TempoError`` as ``TimingWheel/schedule(after:_:)`` does.
    /// - Complexity: O(1); a shard's table grows by one fixed chunk when full.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) throws(TempoError)
        -> TimingWheel.Handle
    {
        try withLocal { wheel throws(TempoError) in try wheel.schedule(after: delay, action) }
    }

    /// Disarms a timer armed on any shard; see ``TimingWheel/cancel(_:)``.
    ///
    /// - Parameter handle: A handle from this wheel.
    /// - Returns: `true` if the timer was armed (it will not fire); `false` for a stale or foreign handle.
    /// - Complexity: O(shards) to find the shard, then O(1).
    @discardableResult
    public func cancel(_ handle: TimingWheel.Handle) -> Bool {
        guard let index = shardIndex(of: handle) else { return false }
        return unretained[index]._withUnsafeGuaranteedRef { $0.cancel(handle) }
    }

    /// Moves an armed timer's deadline; see ``TimingWheel/reschedule(_:at:)``.
    ///
    /// - Parameters:
    ///   - handle: A handle from this wheel.
    ///   - deadline: The new deadline.
    /// - Returns: `true` if the timer was armed and now has the new deadline; `false` for a stale handle.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInstant`` when `deadline` is out of range.
    /// - Complexity: O(shards) to find the shard, then O(1).
    @discardableResult
    public func reschedule(_ handle: TimingWheel.Handle, at deadline: TimerDeadline) throws(TempoError) -> Bool {
        guard let shard = shard(of: handle) else { return false }
        return try shard.reschedule(handle, at: deadline)
    }

    /// Moves an armed timer's deadline to `delay` from now; see ``TimingWheel/reschedule(_:after:)``.
    ///
    /// - Parameters:
    ///   - handle: A handle from this wheel.
    ///   - delay: How long from now, from zero (due at once) to 292 years (`Int64.max` ns).
    /// - Returns: `true` if the timer was armed; `false` for a stale handle.
    /// - Throws: ``TempoError`` for a negative delay or one above 292 years (`Int64.max` ns).
    /// - Complexity: O(shards) to find the shard, then O(1).
    @discardableResult
    public func reschedule(_ handle: TimingWheel.Handle, after delay: Duration) throws(TempoError) -> Bool {
        guard let shard = shard(of: handle) else {
            try TempoError.validateDelay(delay)
            return false
        }
        return try shard.reschedule(handle, after: delay)
    }

    /// Whether `handle` names a timer that is still armed.
    ///
    /// - Parameter handle: A handle from this wheel.
    /// - Returns: `false` once the timer has been taken for firing or was cancelled, or for a foreign handle.
    public func isArmed(_ handle: TimingWheel.Handle) -> Bool {
        shard(of: handle)?.isArmed(handle) ?? false
    }

    /// The deadline of an armed timer, or `nil` for a stale or foreign handle; see ``TimingWheel/deadline(of:)``.
    ///
    /// - Parameter handle: A handle from this wheel.
    /// - Returns: The deadline the timer will fire at or after.
    public func deadline(of handle: TimingWheel.Handle) -> TimerDeadline? {
        shard(of: handle)?.deadline(of: handle)
    }
}
