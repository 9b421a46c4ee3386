/// How many permits a rate limiter admits: `permits` per `period` on average, at most `burst` at once.
///
/// The limiters implement the generic cell rate algorithm (GCRA), which admits exactly what a token bucket of
/// `burst` tokens refilled at `permits` per `period` admits: an idle limiter admits `burst` requests at once, then one
/// every `period / permits`. The arithmetic is exact (integers in units of attoseconds ÷ `permits`), so over any
/// number of requests on any clock nothing drifts: at every instant `t` after the limiter was created, a client that
/// asks as often as it may has been admitted `burst + ⌊(t - start) · permits / period⌋` times. Nothing traps at the
/// limits either: 2^126 / `permits` attoseconds (at least 2,700 years: only a virtual clock gets there) after a
/// limiter was created its time stops, and it admits nothing more.
///
/// `RateLimit` is a value type and is `Sendable`.
public struct RateLimit: Hashable, Sendable {
    /// The permits per ``period``.
    public let permits: Int
    /// The period over which ``permits`` are granted.
    public let period: Duration
    /// The most permits granted at once after the limiter was idle (the bucket's size).
    public let burst: Int

    /// The largest ``permits`` and ``burst`` accepted: 10^9.
    public static let maximumCount = 1_000_000_000

    /// Creates a rate.
    ///
    /// - Parameters:
    ///   - permits: Permits per `period`, between 1 and ``maximumCount``.
    ///   - period: The period; positive, at most 292 years (`Int64.max` ns).
    ///   - burst: The bucket's size, between 1 and ``maximumCount``; by default `permits`.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` for `permits` or `burst` out of range, or
    ///   ``TempoError/Code/invalidInterval`` for an invalid `period`.
    public init(permits: Int, every period: Duration, burst: Int? = nil) throws(TempoError) {
        try TempoError.validateInterval(period, name: "period")
        let burst = burst ?? permits
        for (name, count) in [("permits", permits), ("burst", burst)]
        where count < 1 || count > Self.maximumCount {
            throw TempoError(
                .invalidCount, value: "\(count)",
                message: "\(name) must be between 1 and \(Self.maximumCount), got \(count)")
        }
        self.permits = permits
        self.period = period
        self.burst = burst
    }
}

/// The exact GCRA of a ``RateLimit``: time is scaled by `permits`, so one permit costs `period` in attoseconds and
/// every quantity is an integer.
///
/// A bucket's state is its theoretical arrival time `tat` in scaled units since the limiter's origin: the bucket is
/// full when `tat` is not after now, so a new bucket starts at now. Not thread-safe: a value kept under its owner's
/// lock.
@usableFromInline
struct GCRA: Sendable {
    /// The cost of one permit: `period` in attoseconds.
    @usableFromInline let increment: Int128
    /// The bucket's size: `burst · increment`.
    @usableFromInline let capacity: Int128
    /// The time scale: `permits`.
    @usableFromInline let scale: Int128

    @usableFromInline
    init(_ limit: RateLimit) {
        increment = limit.period.attoseconds
        capacity = Int128(limit.burst) * increment
        scale = Int128(limit.permits)
    }

    /// `elapsed` since the origin in scaled units.
    @inlinable
    func scaled(_ elapsed: Duration) -> Int128 {
        scaled(attoseconds: elapsed.attoseconds)
    }

    /// `attoseconds` since the origin in scaled units.
    @inlinable
    @inline(__always)
    func scaled(attoseconds: Int128) -> Int128 {
        // The scale is at most 10^9 < 2^30, so below 2^96 attoseconds (2,500 years) the product is below 2^126: the
        // unchecked multiplication is exact. Beyond (only on a virtual clock), it saturates at ±2^126, where time
        // stops for the limiter: with the capacity at most 2^113 (`maximumCount` times `maximumDuration`),
        // `now + capacity` and a TAT plus one increment stay below 2^127, so nothing traps.
        if UInt64(truncatingIfNeeded: attoseconds.magnitude >> 96) == 0 { return attoseconds &* scale }
        let limit: Int128 = 1 << 126
        let (product, overflow) = attoseconds.multipliedReportingOverflow(by: scale)
        guard overflow || product > limit || product < -limit else { return product }
        return attoseconds < 0 ? -limit : limit
    }

    /// Admits one permit at scaled time `now`: the new `tat`, or `nil` when the bucket is empty.
    @inlinable
    func admit(_ tat: Int128, now: Int128) -> Int128? {
        let next = max(tat, now) + increment
        return next <= now + capacity ? next : nil
    }

    /// The earliest time since the origin at which a bucket at `tat` admits one permit (rounded up to the
    /// attosecond, so never early).
    @inlinable
    func ready(_ tat: Int128) -> Duration {
        Duration(attoseconds: Self.divideRoundingUp(tat + increment - capacity, scale))
    }

    /// The time since the origin from which a bucket at `tat` is full again, and so equal to a new one.
    @inlinable
    func refilled(_ tat: Int128) -> Duration {
        Duration(attoseconds: Self.divideRoundingUp(tat, scale))
    }

    @inlinable
    static func divideRoundingUp(_ value: Int128, _ divisor: Int128) -> Int128 {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder > 0 ? quotient + 1 : quotient
    }
}
