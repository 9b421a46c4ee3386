/// A `Clock` that reads one of Tempo's ``TimerClock``s through a ``TimerScheduler``.
///
/// It lets async code use Tempo's clocks and schedulers wherever Swift expects a `Clock`: `Task.sleep`,
/// ``AsyncTickSequence``, ``withTimeout(after:leeway:clock:operation:)``, or your own generic code. Its
/// sleeps are deadlines on the scheduler, so they are as punctual as ``TempoTimer``'s ticks, and on a
/// `VirtualClock` (in `TempoTesting`) they end only when the test advances time.
///
/// ```swift
/// let wall = TempoClock(.wall)                 // follows the calendar when the system clock is set
/// try await wall.sleep(until: nineOClock, tolerance: .seconds(1))
/// ```
///
/// - **now** is ``TimerScheduler/now(_:)`` of ``timerClock``.
/// - **sleep(until:tolerance:)** returns no earlier than the deadline on ``timerClock``, and aims to return
///   by deadline + tolerance. A deadline that is not in the future returns at once. Cancelling the task
///   disarms the deadline, releases it and throws `CancellationError` at once.
///
/// `TempoClock` is a value type and is `Sendable`; every method may be called from any task.
public struct TempoClock: Clock, Sendable {
    /// Instants are ``TimerInstant``s of ``timerClock``.
    public typealias Instant = TimerInstant
    /// Durations are `Swift.Duration`.
    public typealias Duration = Swift.Duration

    /// The Tempo clock this clock reads.
    public let timerClock: TimerClock
    /// The scheduler that provides time and deadlines.
    public let scheduler: any TimerScheduler

    /// Creates a clock for `timerClock` on `scheduler`.
    ///
    /// - Parameters:
    ///   - timerClock: The clock to read (default ``TimerClock/monotonic``).
    ///   - scheduler: The scheduler (default ``SystemScheduler/shared``; pass a `VirtualClock` in tests).
    public init(_ timerClock: TimerClock = .monotonic, scheduler: any TimerScheduler = SystemScheduler.shared) {
        self.timerClock = timerClock
        self.scheduler = scheduler
    }

    /// The current instant of ``timerClock``.
    public var now: TimerInstant {
        scheduler.now(timerClock)
    }

    /// One nanosecond: the resolution Tempo hands deadlines to the operating system with.
    public var minimumResolution: Duration {
        .nanoseconds(1)
    }

    /// Suspends the task until `deadline` on ``timerClock``.
    ///
    /// - Parameters:
    ///   - deadline: The instant to wake at; one not in the future returns at once.
    ///   - tolerance: How late past `deadline` the sleep may end so that wakeups can be batched (`nil`: zero).
    /// - Throws: `CancellationError` when the task is or gets cancelled (at once, not at the deadline);
    ///   ``TempoError`` with ``TempoError/Code/invalidLeeway`` for a negative or oversized tolerance.
    public func sleep(until deadline: TimerInstant, tolerance: Duration? = nil) async throws {
        let leeway = try TempoError.validateLeeway(tolerance ?? .zero)
        try Task.checkCancellation()
        guard deadline > now else { return }
        let sleep = ScheduledSleep(scheduler: scheduler)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                sleep.begin(continuation, deadline: deadline, leeway: leeway, clock: timerClock)
            }
        } onCancel: {
            sleep.cancel()
        }
    }
}

extension TempoClock {
    /// The monotonic clock on the real scheduler: stops while the machine sleeps.
    public static var monotonic: TempoClock { TempoClock(.monotonic) }
    /// The continuous clock on the real scheduler: counts through sleep.
    public static var continuous: TempoClock { TempoClock(.continuous) }
    /// The wall clock on the real scheduler: calendar time, following changes to the system clock.
    public static var wall: TempoClock { TempoClock(.wall) }
}
