import Dispatch
import Synchronization
import TempoLocks

/// A timer that ticks once, a fixed number of times or forever, on a clock of your choice.
///
/// ```swift
/// let timer = try TempoTimer(.every(.milliseconds(250), repeats: .times(8))) { tick in
///     print("tick \(tick.index), \(tick.lateness) late")
/// }
/// timer.start()
/// ```
///
/// ## Timing
/// - **First tick**: one interval after ``start()`` by default, or as ``FirstTick`` says.
/// - **Anchored grid**: tick `k` is due at `first + (k - 1) · interval`, however late earlier handlers ran,
///   so nothing drifts.
/// - **Never early**: no tick is delivered before its due instant. It may run up to ``leeway`` late so
///   that wakeups can be batched, and later still if the delivery queue is busy.
/// - **Late ticks**: when the next tick is already due as well, ``LateTickPolicy`` decides (coalesce by default).
///   The next deadline is armed once the previous tick's handlers have returned, so a slow handler or a
///   busy queue is treated like any other lateness: under coalesce it gets one tick, not a backlog.
/// - **Pause** keeps the time left to the next tick; ``resume()`` shifts the whole grid by the paused time.
/// - **Cancellation**: once ``cancel()`` has returned, no further tick is claimed for delivery and queued
///   ticks are dropped. At most one run, claimed by the delivery queue before the cancel took effect, may
///   still be entering or running its handlers; `cancel()` never waits for user code. Called from a handler
///   of this timer, it stops every later tick.
///
/// ## Ownership
/// A *running* timer is kept alive by its scheduler until it finishes or is cancelled: you do not need
/// to hold it for it to fire, and releasing your last reference does not stop it (call ``cancel()``).
/// An idle or paused timer is kept alive only by your references. The timer never retains anything
/// but its handlers; to avoid keeping an owner alive through a handler, capture it weakly or use
/// a ``TimerHandler/weak(_:_:)`` handler,
/// which ends the timer on the first tick after the target died.
///
/// ## Thread safety
/// Every method may be called from any thread, in any order, any number of times, including from the
/// timer's own handlers. No user code runs under the timer's lock. Runs of one timer's handlers never
/// overlap, and are called in the order they were added.
public final class TempoTimer: Sendable {
    /// A closure called for each tick.
    package typealias Handler = @Sendable (TimerTick) -> Void

    // The stored properties are ordered so that the object has no padding between them: every armed timer is
    // one allocation of this object, so each byte counts (see docs/latency.md, "Arming and cancelling many timers").

    /// The scheduler, the clock and how the mailbox gets drained, in one word: on ``SystemScheduler`` the driver of
    /// the timer's clock, armed with no closure per arm.
    let engine: Engine
    /// The state machine, under the timer's lock (internal for the extensions in `TempoTimer+*.swift`).
    let machine: TempoMutex<TimerStateMachine>

    /// Ticks claimed from the mailbox whose handlers have not been called yet. ``cancel()`` waits for this
    /// to reach zero, which takes a few instructions (no user code runs in between), so that a run that
    /// was claimed before the cancel has begun before `cancel()` returns. One byte: a claim is only made by the
    /// drain loop, and the mailbox has at most one drain running, so the value is 0 or 1, and that drain sets and clears
    /// it with plain stores (drains of one timer follow one another through its lock), no read-modify-write.
    let claimsInFlight = Atomic<Int8>(0)

    /// Creates a timer from its timing, delivery and label (inside the package: the public form takes a
    /// ``TimerSchedule``).
    ///
    /// - Parameter validated: Whether the caller has just validated `configuration` (``TimerSchedule`` does, to
    ///   make it): the common path then checks it once, not twice.
    @inline(__always)
    init(
        configuration: borrowing Configuration,
        delivery: borrowing TimerDelivery,
        label: borrowing TimerLabel?,
        scheduler: borrowing any TimerScheduler,
        targetIsAlive: (@Sendable () -> Bool)?,
        handler: consuming Handler?,
        validated: Bool = false
    ) throws(TempoError) {
        if !validated { try configuration.validate() }
        let clock = configuration.clock
        if let system = Self.systemScheduler(scheduler) {
            let driver = system._withUnsafeGuaranteedRef { $0.unretainedDriver(for: clock) }
            let livesForever = driver._withUnsafeGuaranteedRef { $0.livesForever }
            switch delivery.kind {
            case .immediate:
                engine = livesForever ? .sharedInline(driver) : .systemInline(driver.takeUnretainedValue())
            case .privateQueue:
                engine = livesForever ? .sharedPool(driver) : .systemPool(driver.takeUnretainedValue())
            case .queue(let target):
                engine = .systemQueue(QueueRoute(driver: driver.takeUnretainedValue(), queue: target))
            }
        } else {
            // Not `scheduler` itself: its pending action keeps this timer alive (see `keptReference`).
            let queue: DispatchQueue?
            switch delivery.kind {
            case .immediate: queue = nil
            case .privateQueue: queue = DeliveryPool.queue
            case .queue(let target): queue = target
            }
            engine = .other(OtherScheduler(scheduler: scheduler.keptReference, clock: clock, queue: queue))
        }
        machine = TempoMutex(
            TimerStateMachine(
                config: configuration, label: label, handler: consume handler, targetIsAlive: targetIsAlive))
    }

    /// `scheduler` as ``SystemScheduler`` when it is one (the class is final, so its type is compared exactly).
    ///
    /// Read from the existential container, whose layout is the Swift ABI's: three words of inline buffer (a class
    /// reference is stored in the first), then the value's type metadata. `as?` goes through the runtime's dynamic
    /// cast, `type(of:)` calls the runtime too, and a generic function that opened the existential was called
    /// unspecialized, with its metadata: each on every timer created (issue #44). Unretained: the caller's `scheduler`
    /// keeps it alive meanwhile.
    @inline(__always)
    private static func systemScheduler(_ scheduler: borrowing any TimerScheduler) -> Unmanaged<SystemScheduler>? {
        withUnsafePointer(to: scheduler) { container in
            let words = UnsafeRawPointer(container)
            let metadata = words.load(
                fromByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer.self)
            guard metadata == unsafeBitCast(SystemScheduler.self, to: UnsafeRawPointer.self) else { return nil }
            return words.load(as: Unmanaged<SystemScheduler>.self)
        }
    }

    // MARK: State

    /// The timer's lifecycle state.
    public var state: TimerState { machine.withLock { $0.state } }

    /// The clock this timer measures deadlines on.
    public var clock: TimerClock {
        switch engine {
        case .sharedPool(let driver), .sharedInline(let driver): driver._withUnsafeGuaranteedRef { $0.clock }
        case .systemPool(let driver), .systemInline(let driver): driver.clock
        case .systemQueue(let route): route.driver.clock
        case .other(let other): other.clock
        }
    }

    /// The ``SystemScheduler`` driver of the timer's clock (`nil` on another scheduler), without a reference count: the arm and cancel paths call it through this, because
    /// every timer of a clock shares its driver, and a retain and a release on every arm and cancel made its
    /// reference count a cache line that all threads arming timers wrote (issue #31). The driver stays alive
    /// meanwhile: ``engine``, a constant of the timer, holds it.
    @inline(__always)
    var unretainedDriver: Unmanaged<ClockDriver>? { engine.driver }

    /// The current instant of the timer's clock.
    func now() -> TimerInstant { nowAndStamp().now }

    /// The current instant of the timer's clock and, on ``SystemScheduler``, the same reading in nanoseconds (the
    /// stamp of an arm made next: see ``perform(stamp:_:)``), from one read of the clock: turning the instant back
    /// into nanoseconds would cost a division on every `start()`.
    @inline(__always)
    func nowAndStamp() -> (now: TimerInstant, stamp: Int64?) {
        if case .other(let other) = engine { return (other.scheduler.now(other.clock), nil) }
        let nanoseconds = PlatformClock.nanoseconds(clock)
        return (TimerInstant(nanoseconds: nanoseconds), nanoseconds)
    }

    /// Whether the timer finished or was cancelled and no delivery is queued or running (see
    /// `TimerStateMachine.hasEnded`).
    ///
    /// A timer that is `.finished` while its last tick waits for (or runs) its handlers has *not* ended: it becomes
    /// `.finished` when that tick is handed to delivery, and a ``TimerRegistry`` entry must stay current until the
    /// handler ran, or the registry's wrapper would skip it (the lost-tick bug of issue #10).
    package var hasEnded: Bool { machine.withLock { $0.hasEnded } }

    /// Runs `body` on the state machine under the timer's lock, for extensions in other files (no user code).
    func withMachine<Result: Sendable>(_ body: (inout TimerStateMachine) -> Result) -> Result {
        machine.withLock { body(&$0) }
    }

    /// The number of scheduled ticks delivered to the handlers since the last ``start()`` or ``reset(interval:)``.
    ///
    /// Manual ``fire()``s are not counted; a coalesced tick counts once.
    public var fireCount: Int { machine.withLock { $0.fireCount } }

    /// The number of grid slots left for a finite timer (`nil` for ``TimerRepeats/forever``).
    ///
    /// A slot is used when it is handed to delivery, or dropped or folded in by the late-tick policy.
    public var remainingCount: Int? { machine.withLock { $0.remainingCount } }

    /// The delivery the timer was created with, read back from its engine.
    var currentDelivery: TimerDelivery {
        switch engine {
        case .systemInline, .sharedInline: .immediate
        case .systemPool, .sharedPool: .privateQueue
        case .systemQueue(let route): route.queue === DeliveryPool.queue ? .privateQueue : .queue(route.queue)
        case .other(let other):
            if let queue = other.queue {
                queue === DeliveryPool.queue ? .privateQueue : .queue(queue)
            } else {
                .immediate
            }
        }
    }

    /// The time until the next tick is due: counting down while running, frozen while paused, `nil` when
    /// idle, finished or cancelled.
    public var timeUntilNextTick: Duration? {
        let now = now()
        return machine.withLock { $0.timeUntilNextTick(now: now) }
    }

    /// How late past its due instant a tick may run.
    ///
    /// Read-only: change it with ``setLeeway(_:)``, which throws a ``TempoError`` for bad input (one rule for
    /// every bad value, no trap).
    public var leeway: Duration { machine.withLock { $0.leeway } }

    /// Changes the leeway, re-arming the pending deadline if the timer is running.
    ///
    /// - Parameter leeway: The new tolerance.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidLeeway`` for a negative or oversized value; the
    ///   leeway is then unchanged.
    public func setLeeway(_ leeway: Duration) throws(TempoError) {
        try TempoError.validateLeeway(leeway)
        perform { $0.setLeeway(leeway) }
    }
}
