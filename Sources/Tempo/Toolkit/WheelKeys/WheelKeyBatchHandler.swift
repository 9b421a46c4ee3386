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
    @usableFromInline let state = TempoMutex(WheelKeyTable<Key, Payload>())
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
