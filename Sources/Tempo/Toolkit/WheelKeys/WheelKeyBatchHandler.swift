public import Synchronization
public import TempoLocks

/// The wheel handler of a keyed toolkit type (``ExpiringDictionary``, ``KeyedRateLimiter``): it keeps the type's
/// ``WheelKeyTable`` under a lock and hands each batch of due tokens to `onBatch`.
///
/// `onBatch` is made by the owner's inlinable initializer, so it runs code specialized for the owner's key and
/// payload, where the wheel's call through the handler protocol would run unspecialized generic code. It takes the
/// due entries under one lock and runs any user code outside it.
@usableFromInline
final class WheelKeyBatchHandler<Key: Hashable & Sendable, Payload: Sendable, Context: Sendable>:
    TimingWheelBatchHandler
{
    @usableFromInline typealias Table = WheelKeyTable<Key, Payload>

    @usableFromInline let state = TempoMutex(Table())
    /// Where the table's index is, published under the lock, read outside it to prefetch a key's bucket.
    @usableFromInline let indexHint = WheelKeyIndexHint()
    /// What `onBatch` needs beside the table: the owner's callback, or nothing.
    @usableFromInline let context: Context
    @usableFromInline let onBatch: @Sendable (WheelKeyBatchHandler, TimingWheel, UnsafeBufferPointer<UInt64>) -> Void

    @usableFromInline
    init(
        context: Context,
        onBatch: @escaping @Sendable (WheelKeyBatchHandler, TimingWheel, UnsafeBufferPointer<UInt64>) -> Void
    ) {
        self.context = context
        self.onBatch = onBatch
    }

    @usableFromInline
    func timersFired(values tokens: UnsafeBufferPointer<UInt64>, on wheel: TimingWheel) {
        onBatch(self, wheel, tokens)
    }

    /// Never called: a wheel hands a batch handler every value through ``timersFired(values:on:)``, and this type is
    /// internal, so no other wheel can hold it.
    @usableFromInline
    func timerFired(value: UInt64) {
        assertionFailure("a keyed table's timer fired outside a batch: \(value)")
    }
}

/// Where a ``WheelKeyTable``'s index is (its buckets' address and mask), published by the owner under its lock
/// (``WheelKeyTable/publish(to:)``) and read outside it by ``WheelKeyTable/prefetchBucket(hash:hint:)``: relaxed
/// atomics, since a stale or torn reading only makes a prefetch useless.
@usableFromInline
struct WheelKeyIndexHint: ~Copyable, Sendable {
    @usableFromInline let buckets = Atomic<UInt>(0)
    @usableFromInline let mask = Atomic<Int>(0)

    @inlinable
    init() {}
}
