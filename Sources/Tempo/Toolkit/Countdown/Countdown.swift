import Dispatch
import Synchronization
import TempoLocks

/// Counts a duration down to zero on a clock that keeps running while the app is suspended, reporting the
/// time left at a display period: the "resend the code in 59 s" button.
///
/// ```swift
/// let countdown = try Countdown(duration: .seconds(60)) { remaining in
///     button.title = "Resend in \(remaining.components.seconds) s"
/// } onFinish: {
///     button.isEnabled = true
/// }
/// countdown.start()
/// ```
///
/// ## Timing
/// - **Remaining time comes from the clock**, not from counting ticks: every tick computes
///   `deadline - now` on ``clock`` (``TimerClock/continuous`` by default, or ``TimerClock/wall``), so after the
///   machine or process was suspended the next tick shows the true remaining time.
/// - **Ticks** are due on the boundaries `deadline - k · period` (k ≥ 1) that lie after ``start()``, so with
///   `duration: .seconds(60)` and `every: .seconds(1)` they report 59 s, 58 s, ... 1 s, each exactly on time.
///   Read ``remaining`` for the display before the first tick. A tick that comes late reports the true,
///   smaller, remaining time; ticks missed during a suspension are coalesced into one. Within a run the values
///   strictly decrease: a tick so late that the next one stands for the same boundary (a busy machine) is not
///   reported twice.
/// - **Finish**: at the deadline `onFinish` is called exactly once per run (no tick with zero). A countdown
///   whose deadline passed while suspended finishes as soon as the process runs again, without a tick.
/// - **Pause** freezes the remaining time; ``resume()`` sets a new deadline from now. ``add(_:)`` moves the
///   deadline (ticks re-align to it). ``cancel()`` stops it without calling `onFinish`.
/// - Callbacks run on the delivery (a private serial queue by default) and never overlap.
///
/// ## Surviving a restart
/// ``snapshot()`` returns a `Codable` ``Snapshot`` holding the deadline on the wall clock; a process
/// started later rebuilds the countdown with ``init(restoring:leeway:delivery:clock:scheduler:onTick:onFinish:)``.
///
/// ## Thread safety
/// Every method may be called from any thread, including from the callbacks. No user code runs under the
/// countdown's lock.
public final class Countdown: Sendable {
    /// Called with the time left at each display boundary.
    public typealias TickHandler = @Sendable (Duration) -> Void
    /// Called once when the countdown reaches zero.
    public typealias FinishHandler = @Sendable () -> Void

    /// The lifecycle of a countdown.
    ///
    /// An enum, closed: the phases of a countdown's lifecycle, which a display switches over exhaustively.
    public enum Phase: String, Hashable, Sendable, Codable {
        /// Created, not started.
        case idle
        /// Counting down.
        case running
        /// Paused, with the remaining time frozen.
        case paused
        /// Reached zero: set when the deadline's tick is claimed, just before `onFinish` is called on the delivery,
        /// so `onFinish` runs exactly once for a run even when another thread reads `.finished` (or calls
        /// ``Countdown/cancel()``, which then does nothing) before it has returned.
        case finished
        /// Cancelled before reaching zero.
        case cancelled
    }

    /// The lifecycle, under the countdown's lock; see ``CountdownStateMachine`` for why the internal timer is
    /// never touched under it.
    let machine: TempoMutex<CountdownStateMachine>
    /// The one internal timer, created when a run first arms it and re-armed for every later run; its handler holds
    /// the countdown weakly.
    let timerSlot = TempoMutex<TempoTimer?>(nil)
    let scheduler: any TimerScheduler
    /// The internal timer's schedule, made once in init: a tick every period with the countdown's leeway and clock, on
    /// one serial queue (or ``TimerDelivery/immediate``), so callbacks never overlap.
    let ticks: TimerSchedule
    let onTick: TickHandler
    let onFinish: FinishHandler

    /// The full duration a new run counts down.
    public let duration: Duration
    /// The display period.
    public let period: Duration
    /// The clock the deadline is measured on.
    public var clock: TimerClock { ticks.clock }

    /// Creates an idle countdown; call ``start()``.
    ///
    /// - Parameters:
    ///   - duration: The time to count down.
    ///   - period: The display period (default one second).
    ///   - leeway: How late a tick may run to batch wakeups.
    ///   - delivery: Where the callbacks run (default a private serial queue).
    ///   - clock: ``TimerClock/continuous`` (default) or ``TimerClock/wall`` keep counting while the machine
    ///     sleeps; ``TimerClock/monotonic`` stops with it.
    ///   - scheduler: The scheduler (default ``SystemScheduler/shared``; pass a `VirtualClock` in tests).
    ///   - onTick: Called with the remaining time at each display boundary.
    ///   - onFinish: Called once when the time is up.
    /// - Throws: ``TempoError`` when `duration`, `period` or `leeway` is invalid.
    public init(
        duration: Duration,
        every period: Duration = .seconds(1),
        leeway: Duration = .zero,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .continuous,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        onTick: @escaping TickHandler,
        onFinish: @escaping FinishHandler
    ) throws(TempoError) {
        try TempoError.validateInterval(duration, name: "duration")
        try TempoError.validateSchedule(interval: period, leeway: leeway)
        self.duration = duration
        self.period = period
        self.scheduler = scheduler
        self.onTick = onTick
        self.onFinish = onFinish
        let queue = delivery.dispatchQueue(privateQueue: DispatchQueue(label: "tempo.countdown"))
        let serial = queue.map { TimerDelivery.queue($0) } ?? .immediate
        ticks = .every(period, leeway: leeway, delivery: serial, clock: clock)
        machine = TempoMutex(CountdownStateMachine(duration: duration, period: period))
    }

    deinit {
        timerSlot.withLock { $0 }?.cancel()
    }

    /// The countdown's phase.
    public var phase: Phase { machine.withLock { $0.phase } }

    /// The time left: live while running (never negative), frozen while paused, the full duration while idle,
    /// zero once finished.
    public var remaining: Duration {
        let now = scheduler.now(clock)
        return machine.withLock { $0.remaining(at: now) }
    }

    /// Starts counting down: from idle, finished or cancelled a new run of ``duration`` begins; a paused
    /// countdown resumes; a running one is unchanged.
    ///
    /// - Returns: The countdown, so that creating and starting read as one line, as `TempoTimer`'s and `PlanTimer`'s
    ///   `start()` do. Unlike a running `TempoTimer`, a countdown
    ///   is not kept alive by its pending tick: it stops when its last reference is released, so keep the countdown
    ///   (`let countdown = try Countdown(...).start()`).
    @discardableResult
    public func start() -> Countdown {
        perform(event { $0.start(now: $1) })
        return self
    }

    /// Pauses a running countdown, freezing the remaining time. Does nothing in any other phase.
    public func pause() {
        perform(event { $0.pause(now: $1) })
    }

    /// Resumes a paused countdown: the deadline becomes now plus the frozen remaining time. Does nothing in
    /// any other phase.
    public func resume() {
        perform(event { $0.resume(now: $1) })
    }

    /// Cancels the countdown without calling `onFinish`; once this returns no callback starts. ``start()``
    /// begins a new run.
    ///
    /// A countdown whose phase is already ``Phase/finished`` is unchanged: it reached zero first, and its
    /// `onFinish` runs (or is running) once, even if it has not started when this returns.
    public func cancel() {
        perform(event { $0.cancel(now: $1) })
    }

    /// Adds time: a running countdown's deadline moves later (its ticks re-align to the new deadline), a
    /// paused or idle one's remaining time grows. A finished or cancelled countdown is unchanged.
    ///
    /// The time left may grow beyond ``duration`` this way, but never beyond 292 years (`Int64.max` ns).
    ///
    /// - Parameter extra: The time to add; must be positive.
    /// - Returns: Whether the time was added.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` when `extra` is not positive, or when the
    ///   time left would exceed 292 years (`Int64.max` ns) (the countdown is then unchanged).
    @discardableResult
    public func add(_ extra: Duration) throws(TempoError) -> Bool {
        try TempoError.validateInterval(extra, name: "extra time")
        let now = scheduler.now(clock)
        switch try machine.withLock({ machine throws(TempoError) in try machine.add(extra, now: now) }) {
        case .unchanged:
            return false
        case .grew:
            return true
        case .rearm(let arm):
            perform(.arm(arm))
            return true
        }
    }
}
