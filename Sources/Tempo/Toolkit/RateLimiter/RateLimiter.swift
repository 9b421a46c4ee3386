import Synchronization
import TempoLocks

/// A rate limiter (GCRA, equivalent to a token bucket) with exact arithmetic: ``tryAcquire()`` answers at once,
/// ``acquire()`` waits exactly as long as the next permit needs.
///
/// ```swift
/// let limiter = try RateLimiter(RateLimit(permits: 100, every: .seconds(1), burst: 10))
/// guard limiter.tryAcquire() else { return .tooManyRequests }
/// try await limiter.acquire()                 // or wait for the permit
/// ```
///
/// **Timing.** Admissions follow ``RateLimit``: an idle limiter admits `burst` permits at once, then one every
/// `period / permits` measured on ``clock``, with no drift however many requests it sees (the arithmetic is
/// exact). ``acquire()`` sleeps on the scheduler until the instant the next permit is free (never early, one
/// scheduler latency late), then takes it; if another caller took it first, it sleeps again. Waiters are not
/// queued: under contention a later caller may be admitted before an earlier waiter.
///
/// **Cancellation.** Cancelling a task in ``acquire()`` disarms its wait and throws `CancellationError` at once; it
/// takes no permit.
///
/// Thread-safety: every method may be called from any thread or task. The state is one integer: on
/// ``SystemScheduler`` with a monotonic or continuous clock and a whole number of nanoseconds per permit, a 64-bit
/// atomic changed by compare-exchange (no lock); otherwise a 128-bit integer under a lock. No user code runs under it.
public final class RateLimiter: Sendable {
    /// The rate.
    public let limit: RateLimit
    /// The clock permits are measured on.
    public let clock: TimerClock
    let scheduler: any TimerScheduler
    let origin: TimerInstant
    let gcra: GCRA
    /// The lock-free form of ``gcra`` in nanoseconds, when the limit and the clock allow it; `tat` is then unused.
    let nanosecondGCRA: NanosecondGCRA?
    /// How ``nanosecondGCRA`` reads time: the platform clock directly, or the scheduler (tests on virtual time).
    let readsPlatformClock: Bool
    /// The clock's reading at the origin in nanoseconds (with ``nanosecondGCRA``).
    let originNanoseconds: Int64
    /// The theoretical arrival time in nanoseconds since the origin (with ``nanosecondGCRA``); 0 is full.
    let nanosecondTAT = Atomic<Int64>(0)
    /// The theoretical arrival time (see ``GCRA``) without ``nanosecondGCRA``; 0, the origin, is full.
    let tat = TempoMutex<Int128>(0)

    /// Creates a full limiter (it admits `limit.burst` permits at once).
    ///
    /// - Parameters:
    ///   - limit: The rate.
    ///   - scheduler: Where time is read and waits are armed: ``SystemScheduler/shared`` or a `VirtualClock`.
    ///   - clock: The clock (default ``TimerClock/monotonic``).
    public convenience init(
        _ limit: RateLimit,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        clock: TimerClock = .monotonic
    ) {
        let system = scheduler is SystemScheduler && clock != .wall
        self.init(limit, scheduler: scheduler, clock: clock, nanosecondReadings: system, platformClock: system)
    }

    /// Creates a limiter; `nanosecondReadings` promises that the scheduler's readings of `clock` are whole
    /// nanoseconds that never move more than 146 years from the first one (a monotonic clock of the platform, or a
    /// virtual clock in tests), which allows the lock-free form when the limit fits it.
    init(
        _ limit: RateLimit, scheduler: any TimerScheduler, clock: TimerClock, nanosecondReadings: Bool,
        platformClock: Bool
    ) {
        self.limit = limit
        self.clock = clock
        self.scheduler = scheduler
        gcra = GCRA(limit)
        nanosecondGCRA = nanosecondReadings ? NanosecondGCRA(limit) : nil
        readsPlatformClock = platformClock
        origin = scheduler.now(clock)
        originNanoseconds = nanosecondGCRA == nil ? 0 : Int64(origin.offset.attoseconds / 1_000_000_000)
    }

    /// Takes one permit if one is free now.
    ///
    /// - Returns: `true` if the permit was taken; `false` if none is free (nothing changes).
    /// - Complexity: O(1); allocates nothing.
    public func tryAcquire() -> Bool {
        if let nanosecondGCRA { return nanosecondGCRA.take(nanosecondTAT, now: elapsedNanoseconds()) }
        let now = gcra.scaled(attoseconds: scheduler.now(clock).offset.attoseconds - origin.offset.attoseconds)
        return tat.withLock { tat in
            guard let next = gcra.admit(tat, now: now) else { return false }
            tat = next
            return true
        }
    }

    /// Takes one permit, waiting until one is free.
    ///
    /// - Throws: `CancellationError` when the task is or gets cancelled (at once; no permit is taken).
    public func acquire() async throws {
        let sleeper = TempoClock(clock, scheduler: scheduler)
        while true {
            try Task.checkCancellation()
            let ready: Duration?
            if let nanosecondGCRA {
                let now = elapsedNanoseconds()
                ready = nanosecondGCRA.take(nanosecondTAT, now: now) ? nil : nanosecondGCRA.ready(nanosecondTAT)
            } else {
                let now = scheduler.now(clock)
                ready = tat.withLock { tat -> Duration? in
                    let scaledNow = gcra.scaled(now - origin)
                    guard let next = gcra.admit(tat, now: scaledNow) else { return gcra.ready(tat) }
                    tat = next
                    return nil
                }
            }
            guard let ready else { return }
            try await sleeper.sleep(until: origin + ready)
        }
    }

    /// The time until a permit is free on ``clock``: zero when ``tryAcquire()`` would succeed now.
    public var timeUntilAvailable: Duration {
        let elapsed = scheduler.now(clock) - origin
        let ready = nanosecondGCRA?.ready(nanosecondTAT) ?? tat.withLock { gcra.ready($0) }
        return max(.zero, ready - elapsed)
    }

    /// Nanoseconds since the origin, for ``nanosecondGCRA``.
    @inline(__always)
    func elapsedNanoseconds() -> Int64 {
        if readsPlatformClock { return PlatformClock.nanoseconds(clock) - originNanoseconds }
        return Int64(scheduler.now(clock).offset.attoseconds / 1_000_000_000) - originNanoseconds
    }
}
