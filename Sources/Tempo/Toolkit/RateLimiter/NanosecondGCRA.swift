import Synchronization

/// ``GCRA`` in whole nanoseconds on one 64-bit atomic: the lock-free form of a ``RateLimiter``.
///
/// When one permit costs a whole number of nanoseconds (`period / permits`) and the clock reads whole nanoseconds,
/// every quantity of the exact GCRA is a multiple of `10^9 · permits` scaled units, so dividing them all by it gives
/// the same admissions in nanoseconds: the theoretical arrival time fits one `Int64` (146 years from the origin),
/// and an admission is one compare-exchange instead of a lock round trip. Only limits whose bucket holds at most
/// 2^61 ns (73 years) qualify, so no sum below can overflow while the clock stays within 2^62 ns (146 years) of the
/// origin.
struct NanosecondGCRA: Sendable {
    /// The cost of one permit in nanoseconds.
    let increment: Int64
    /// The bucket's size in nanoseconds: `burst · increment`.
    let capacity: Int64

    /// The lock-free form of `limit`, or `nil` when a permit is not a whole number of nanoseconds or the bucket is
    /// too large.
    init?(_ limit: RateLimit) {
        let (period, remainder) = limit.period.attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        guard remainder == 0, period % Int128(limit.permits) == 0 else { return nil }
        let increment = period / Int128(limit.permits)
        let capacity = increment * Int128(limit.burst)
        guard capacity <= 1 << 61 else { return nil }
        self.increment = Int64(increment)
        self.capacity = Int64(capacity)
    }

    /// Admits one permit at `now` (nanoseconds since the origin) if the bucket at `tat` has one: `true` when taken.
    @inline(__always)
    func take(_ tat: borrowing Atomic<Int64>, now: Int64) -> Bool {
        var current = tat.load(ordering: .relaxed)
        while true {
            let next = max(current, now) + increment
            // A single 64-bit load is a value the state had: denying on it is as exact as under a lock.
            guard next <= now + capacity else { return false }
            let (exchanged, original) = tat.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// The earliest time since the origin at which the bucket admits one permit.
    func ready(_ tat: borrowing Atomic<Int64>) -> Duration {
        .nanoseconds(tat.load(ordering: .relaxed) + increment - capacity)
    }
}
