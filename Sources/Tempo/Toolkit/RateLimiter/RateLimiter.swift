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
/// Thread-safety: every method may be called from any thread or task. The state is one integer under a lock; no
/// user code runs under it.
public final class RateLimiter: Sendable {
    /// The rate.
    public let limit: RateLimit
    /// The clock permits are measured on.
    public let clock: TimerClock
    let scheduler: any TimerScheduler
    /// Whether ``scheduler`` is ``SystemScheduler``, whose clock is read directly (no call through the protocol).
    let readsPlatformClock: Bool
    let origin: TimerInstant
    let gcra: GCRA
    /// The theoretical arrival time (see ``GCRA``); 0, the origin, is full.
    let tat = TempoMutex<Int128>(0)

    /// Creates a full limiter (it admits `limit.burst` permits at once).
    ///
    /// - Parameters:
    ///   - limit: The rate.
    ///   - scheduler: Where time is read and waits are armed: ``SystemScheduler/shared`` or a `VirtualClock`.
    ///   - clock: The clock (default ``TimerClock/monotonic``).
    public init(
        _ limit: RateLimit,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        clock: TimerClock = .monotonic
    ) {
        self.limit = limit
        self.clock = clock
        self.scheduler = scheduler
        readsPlatformClock = scheduler is SystemScheduler
        self.gcra = GCRA(limit)
        origin = scheduler.now(clock)
    }

    /// Takes one permit if one is free now.
    ///
    /// - Returns: `true` if the permit was taken; `false` if none is free (nothing changes).
    /// - Complexity: O(1); allocates nothing.
    public func tryAcquire() -> Bool {
        let now = scaledNow()
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
            let now = scheduler.now(clock)
            let ready = tat.withLock { tat -> Duration? in
                let scaledNow = gcra.scaled(now - origin)
                guard let next = gcra.admit(tat, now: scaledNow) else { return gcra.ready(tat) }
                tat = next
                return nil
            }
            guard let ready else { return }
            try await sleeper.sleep(until: origin + ready)
        }
    }

    /// The clock's reading in scaled units since the origin (see ``GCRA``).
    @inline(__always)
    func scaledNow() -> Int128 {
        let reading = readsPlatformClock ? PlatformClock.now(clock) : scheduler.now(clock)
        return gcra.scaled(attoseconds: reading.offset.attoseconds - origin.offset.attoseconds)
    }

    /// The time until a permit is free on ``clock``: zero when ``tryAcquire()`` would succeed now.
    public var timeUntilAvailable: Duration {
        let elapsed = scheduler.now(clock) - origin
        let ready = tat.withLock { gcra.ready($0) }
        return max(.zero, ready - elapsed)
    }
}
