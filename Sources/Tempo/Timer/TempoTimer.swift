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
    private let machine: TempoMutex<TimerStateMachine>

    /// Ticks claimed from the mailbox whose handlers have not been called yet. ``cancel()`` waits for this
    /// to reach zero, which takes a few instructions (no user code runs in between), so that a run that
    /// was claimed before the cancel has begun before `cancel()` returns. One byte: a claim is only made by the
    /// drain loop, and the mailbox has at most one drain running, so the value is 0 or 1.
    private let claimsInFlight = Atomic<Int8>(0)

    /// Creates a timer from a configuration (inside the package: the public form takes a ``TimerSchedule``).
    convenience init(
        configuration: Configuration,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        handler: Handler? = nil
    ) throws(TempoError) {
        try self.init(configuration: configuration, scheduler: scheduler, targetIsAlive: nil, handler: handler)
    }

    /// - Parameter validated: Whether the caller has just validated `configuration` (``TimerSchedule`` does, to
    ///   make it): the common path then checks it once, not twice.
    init(
        configuration: Configuration,
        scheduler: any TimerScheduler,
        targetIsAlive: (@Sendable () -> Bool)?,
        handler: Handler?,
        validated: Bool = false
    ) throws(TempoError) {
        if !validated { try configuration.validate() }
        let clock = configuration.clock
        if let system = Self.systemScheduler(scheduler) {
            let driver = system._withUnsafeGuaranteedRef { $0.driver(for: clock) }
            switch configuration.delivery.kind {
            case .immediate: engine = .systemInline(driver)
            case .privateQueue: engine = .systemPool(driver)
            case .queue(let target): engine = .systemQueue(QueueRoute(driver: driver, queue: target))
            }
        } else {
            // Not `scheduler` itself: its pending action keeps this timer alive (see `keptReference`).
            let queue: DispatchQueue?
            switch configuration.delivery.kind {
            case .immediate: queue = nil
            case .privateQueue: queue = DeliveryPool.queue
            case .queue(let target): queue = target
            }
            engine = .other(OtherScheduler(scheduler: scheduler.keptReference, clock: clock, queue: queue))
        }
        machine = TempoMutex(
            TimerStateMachine(config: configuration, handler: handler, targetIsAlive: targetIsAlive))
    }

    /// `scheduler` as ``SystemScheduler`` when it is one (the class is final, so its type is compared exactly).
    ///
    /// Opening the existential and comparing metatypes costs a few instructions; `as?` goes through the runtime's
    /// dynamic cast on every timer created. Unretained: the caller's `scheduler` keeps it alive meanwhile.
    private static func systemScheduler<Scheduler: TimerScheduler>(
        _ scheduler: Scheduler
    ) -> Unmanaged<SystemScheduler>? {
        guard Scheduler.self == SystemScheduler.self else { return nil }
        // `Scheduler` is `SystemScheduler`: the value is that class's reference, loaded (not retained) as such.
        return withUnsafePointer(to: scheduler) { UnsafeRawPointer($0).load(as: Unmanaged<SystemScheduler>.self) }
    }

    // MARK: State

    /// The timer's lifecycle state.
    public var state: TimerState { machine.withLock { $0.state } }

    /// The clock this timer measures deadlines on.
    public var clock: TimerClock {
        switch engine {
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
    var unretainedDriver: Unmanaged<ClockDriver>? {
        switch engine {
        case .systemPool(let driver), .systemInline(let driver): Unmanaged.passUnretained(driver)
        case .systemQueue(let route): Unmanaged.passUnretained(route.driver)
        case .other: nil
        }
    }

    /// The current instant of the timer's clock.
    func now() -> TimerInstant {
        switch engine {
        case .systemPool(let driver), .systemInline(let driver): PlatformClock.now(driver.clock)
        case .systemQueue(let route): PlatformClock.now(route.driver.clock)
        case .other(let other): other.scheduler.now(other.clock)
        }
    }

    /// Whether the timer finished or was cancelled and no delivery is queued or running (see
    /// `TimerStateMachine.hasEnded`).
    var hasEnded: Bool { machine.withLock { $0.hasEnded } }

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
        case .systemInline: .immediate
        case .systemPool: .privateQueue
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

    // MARK: Lifecycle

    /// Starts the timer: from idle, finished or cancelled it begins a new schedule (fire count back to 0);
    /// from paused it resumes; while running it does nothing.
    ///
    /// A one-shot whose tick has fired is finished, so `start()` runs it again (as it restarts a cancelled timer):
    /// creating a timer never starts it, so the `start()` that creates and starts in one line is the only one. An
    /// ``TimerSchedule/after(_:leeway:delivery:clock:)`` one-shot then waits its delay again; an
    /// ``TimerSchedule/at(_:ifPast:leeway:delivery:)`` one-shot is re-armed at its deadline, which has passed, so it
    /// fires again at once (whatever its ``PastDeadlinePolicy``: that is checked only where the timer is created);
    /// move it first with ``reschedule(at:)`` or ``reschedule(after:)``.
    ///
    /// - Returns: The timer, so that `try TempoTimer(...) { ... }.start()` creates and starts in one expression.
    @discardableResult
    public func start() -> TempoTimer {
        let now = now()
        perform(now: now) { $0.start(now: now) }
        return self
    }

    /// Pauses a running timer, keeping the time left to the next tick. Does nothing in any other state.
    ///
    /// Ticks that were already due before the pause are still delivered.
    public func pause() {
        let now = now()
        perform { $0.pause(now: now) }
    }

    /// Resumes a paused timer: the next tick is due after the time that was left when it paused, and the
    /// grid is shifted by the time spent paused. Does nothing in any other state.
    public func resume() {
        let now = now()
        perform { $0.resume(now: now) }
    }

    /// Starts the schedule over from now: the next tick is due one interval (or the configured first-tick
    /// delay) from now, and the fire and remaining counts start again. Ticks of the old schedule that were
    /// not yet delivered are dropped.
    ///
    /// A paused timer stays paused with a full first delay left (``restart(interval:)`` resumes it instead); any
    /// other timer ends up running. A one-shot has no interval: an ``TimerSchedule/after(_:leeway:delivery:clock:)``
    /// one-shot starts its delay over, and an ``TimerSchedule/at(_:ifPast:leeway:delivery:)`` one-shot is re-armed
    /// at its deadline, so once that has passed it fires at once, even one created with `ifPast: .throw` (the
    /// ``PastDeadlinePolicy`` is checked only where the timer is created; move it with ``reschedule(at:)``).
    ///
    /// - Parameter interval: A new interval, or `nil` to keep the current one.
    /// - Throws: ``TempoError`` when `interval` is invalid, or is given for a one-shot
    ///   (``TempoError/Code/invalidInterval``); the timer is then unchanged.
    public func reset(interval: Duration? = nil) throws(TempoError) {
        if let interval {
            if withMachine({ $0.isOneShot }) {
                throw TempoError(
                    .invalidInterval, value: interval.exactDescription,
                    message:
                        "a one-shot has no interval to reset to \(interval.exactDescription): use reschedule(after:)")
            }
            try TempoError.validateInterval(interval)
        }
        let now = now()
        perform { $0.reset(now: now, interval: interval) }
    }

    /// Starts the schedule over from now and runs it, whatever the state: ``reset(interval:)``, then ``resume()``
    /// for a paused timer (Repeat's `reset(_:restart: true)`).
    ///
    /// - Parameter interval: A new interval, or `nil` to keep the current one.
    /// - Throws: ``TempoError`` as ``reset(interval:)`` does; the timer is then unchanged.
    public func restart(interval: Duration? = nil) throws(TempoError) {
        try reset(interval: interval)
        resume()
    }

    /// Cancels the timer: once this returns, no further tick is claimed for delivery and queued ticks are
    /// dropped. A run the delivery queue had already claimed (at most one) may still be entering or running its
    /// handlers: `cancel()` waits only for the few instructions between a claim and the handler call, never
    /// for user code, so it is safe to call from anywhere, including a handler. Idempotent; ``start()`` runs
    /// the timer again.
    public func cancel() {
        perform { $0.cancel() }
        var spins = 0
        while claimsInFlight.load(ordering: .acquiring) > 0 {
            spins += 1
            if spins > 64 { PlatformThread.yield() }
        }
    }

    /// Runs the handlers now, through the timer's delivery, without touching the schedule.
    ///
    /// The tick has ``TimerTick/isManual`` set and is not counted in ``fireCount``. Works in every state
    /// except cancelled.
    ///
    /// - Returns: Whether a run was queued (`false` for a cancelled timer).
    @discardableResult
    public func fire() -> Bool {
        let now = now()
        var fired = false
        perform { machine in
            let result = machine.fire(now: now)
            fired = result.fired
            return result.actions
        }
        return fired
    }

    // MARK: Observers

    /// Adds a handler, called after the existing ones for every later tick.
    ///
    /// - Parameter handler: The handler.
    /// - Returns: A token for ``removeObserver(_:)``.
    @discardableResult
    public func addObserver(_ handler: @escaping @Sendable (TimerTick) -> Void) -> TimerObservation {
        TimerObservation(id: machine.withLock { $0.addObserver(handler) })
    }

    /// Removes a handler added with ``addObserver(_:)``. A run already under way still calls it.
    ///
    /// - Parameter observation: The token ``addObserver(_:)`` returned.
    /// - Returns: Whether the handler was registered.
    @discardableResult
    public func removeObserver(_ observation: TimerObservation) -> Bool {
        let removed = machine.withLock { $0.removeObserver(id: observation.id) }
        return removed != nil
    }

    /// Sets (or, with `nil`, removes) the closure called with each new ``TimerState``.
    ///
    /// State changes are delivered through the same serial mailbox as ticks, in order with them.
    ///
    /// - Parameter handler: The closure.
    public func onStateChange(_ handler: (@Sendable (TimerState) -> Void)?) {
        let old = machine.withLock { $0.setStateHandler(handler) }
        withExtendedLifetime(old) {}
    }

    // MARK: Machinery

    ///
    /// `now`, when the caller read the timer's clock just before, is passed on to the scheduler: on the monotonic
    /// clock it serves as the new action's ordering stamp, so that the driver need not read the clock again (see
    /// ``ClockDriver``).
    func perform(now: TimerInstant? = nil, _ transition: (inout TimerStateMachine) -> TimerStateMachine.Actions) {
        // On ``SystemScheduler`` an arm is inserted under the timer's lock, so that its handle is recorded in the same
        // critical section (no second lock round trip, and no window in which the handle is unknown). Lock order:
        // the timer's lock, then the scheduler clock's, which is a leaf (no lock is taken under it, and no work runs
        // under it). Other schedulers are armed after the lock is released (``run(_:)``).
        let actions = machine.withLock { machine in armUnderLock(transition(&machine), &machine, now: now) }
        run(actions)
    }

    /// Makes the ``SystemScheduler`` arm of `actions` under the timer's lock (see ``perform(_:)``) and returns what is
    /// left to ``run(_:)`` once the lock is released.
    @inline(__always)
    private func armUnderLock(
        _ actions: TimerStateMachine.Actions, _ machine: inout TimerStateMachine, now: TimerInstant?
    ) -> TimerStateMachine.Actions {
        var actions = actions
        switch actions.scheduler {
        case .none, .disarm:
            break
        case .arm(let arm):
            if let driver = unretainedDriver {
                driver._withUnsafeGuaranteedRef { armSystem($0, arm, &machine, now: now) }
                actions.scheduler = .none
            }
        case .replace(let old, let arm):
            if let driver = unretainedDriver {
                driver._withUnsafeGuaranteedRef { armSystem($0, arm, &machine, now: now) }
                actions.scheduler = .disarm(old)
            }
        }
        return actions
    }

    /// Inserts `arm` into ``SystemScheduler`` and records its handle; called under the timer's lock.
    private func armSystem(
        _ driver: ClockDriver, _ arm: TimerStateMachine.Arm, _ machine: inout TimerStateMachine, now: TimerInstant?
    ) {
        let monotonicNow = driver.clock == .monotonic ? now?.nanosecondsRoundedDown : nil
        let action = driver.schedule(at: arm.deadline, leeway: arm.leeway, target: .timer(self), now: monotonicNow)
        // Always recorded: the transition that requested the arm left the machine waiting for exactly this one.
        if !machine.armed(action, generation: arm.generation) {
            assertionFailure("an arm request was not recorded in the critical section that made it")
            driver.remove(id: action.id, slot: action.slot)
        }
    }

    private func run(_ actions: TimerStateMachine.Actions) {
        switch actions.scheduler {
        case .none:
            break
        case .arm(let arm):
            self.arm(arm)
        case .disarm(let old):
            cancelScheduled(old)
        case .replace(let old, let arm):
            cancelScheduled(old)
            self.arm(arm)
        }
        if actions.startDrain {
            startDrain()
        }
    }

    /// Arms a scheduler other than ``SystemScheduler`` (which ``perform(_:)`` arms under the lock), then records
    /// the handle, unless the arm went stale meanwhile.
    private func arm(_ arm: TimerStateMachine.Arm) {
        guard case .other(let other) = engine else {
            preconditionFailure("SystemScheduler arms are made under the timer's lock")
        }
        let generation = arm.generation
        // A labeled timer names itself to the scheduler for the call (TempoTesting's armed-timer check reads it). No
        // stored closure: the check runs on every arm of an unlabeled timer too, and must not allocate.
        let action: ScheduledAction
        if let label {
            action = TimerLabel.$arming.withValue(label) { schedule(arm, on: other) }
        } else {
            action = schedule(arm, on: other)
        }
        if !machine.withLock({ $0.armed(action, generation: generation) }) {
            cancelScheduled(action)
        }
    }

    /// Schedules `arm` on a scheduler other than ``SystemScheduler``; the action reports the deadline with the arm's
    /// generation.
    private func schedule(_ arm: TimerStateMachine.Arm, on other: OtherScheduler) -> ScheduledAction {
        let generation = arm.generation
        return other.scheduler.schedule(at: arm.deadline, leeway: arm.leeway, clock: other.clock) { [self] in
            scheduledDeadlineReached(generation: generation)
        }
    }

    /// Cancels an armed action on the engine directly (``SystemScheduler`` with no existential in between).
    private func cancelScheduled(_ action: ScheduledAction) {
        if let driver = unretainedDriver {
            driver._withUnsafeGuaranteedRef { $0.remove(id: action.id, slot: action.slot) }
        } else if case .other(let other) = engine {
            other.scheduler.cancel(action)
        }
    }

    private func startDrain() {
        switch engine {
        case .systemInline: drain()
        case .systemPool:
            // On a driver thread, the first mailbox of a wake is drained there, without a second wakeup.
            if let context = DriverContext.current, context.take(self) { return }
            DeliveryPool.shared.submit(self)
        case .systemQueue(let route): route.queue.async { [self] in drain() }
        case .other(let other): other.scheduler.deliver(on: other.queue) { [self] in drain() }
        }
    }

    /// Runs queued deliveries one at a time until the mailbox is empty.
    ///
    /// After a scheduled tick's handlers return, the next step is taken in the same critical section that reports
    /// the delivery (``TimerStateMachine/scheduledTickDelivered()``, which may arm the next deadline): one lock
    /// round trip per tick fewer than reporting and then asking.
    private func drain() {
        var target = TimerStateMachine.TargetCheck.unchecked
        var delivered = false
        while true {
            let now = now()
            let (step, actions) = machine.withLock { machine in
                let actions = delivered ? armUnderLock(machine.scheduledTickDelivered(), &machine, now: now) : .none
                let step = machine.nextStep(now: now, target: target)
                if case .tick = step { claimsInFlight.add(1, ordering: .relaxed) }
                return (step, actions)
            }
            delivered = false
            // Another scheduler's arm, made outside the lock (a tick's delivery never starts a drain: this one runs).
            run(actions)
            target = .unchecked
            switch step {
            case .idle:
                return
            case .checkTarget(let isAlive):
                // Outside the lock: releasing the weak load's reference may run the target's deinit.
                target = isAlive() ? .alive : .gone
            case .tick(let tick, let handlers):
                claimsInFlight.subtract(1, ordering: .releasing)
                // With no instrument added, one relaxed load (see TempoTimer+Instruments.swift).
                if TimerInstruments.isActive {
                    runInstrumented(tick, handlers)
                } else {
                    handlers(tick)
                }
                delivered = !tick.isManual
            case .state(let newState, let handler):
                handler(newState)
            case .targetGone:
                cancel()
            }
        }
    }
}

extension TempoTimer: DeliveryLane {
    /// A scheduler other than ``SystemScheduler`` reached the deadline armed with `generation`.
    func scheduledDeadlineReached(generation: UInt32) {
        let now = now()
        perform { $0.deadlineReached(generation: generation, now: now) }
    }

    /// ``SystemScheduler`` reached the deadline of the action `id` (armed under the timer's lock, so a live one is
    /// recorded as armed); `now` is the clock's reading of the wake that found it due (the ticks it claims are due by
    /// then), or `nil` to read the clock.
    func scheduledActionReached(id: UInt64, now wakeNow: TimerInstant? = nil) {
        let now = wakeNow ?? self.now()
        // The wake's reading is older than this call: not a stamp for an arm made here (see `perform(now:_:)`).
        perform(now: wakeNow == nil ? now : nil) { $0.deadlineReached(actionID: id, now: now) }
    }

    /// A pool worker drains the mailbox.
    package func runDeliveries() {
        drain()
    }
}

/// A token for a handler added with ``TempoTimer/addObserver(_:)``.
public struct TimerObservation: Hashable, Sendable {
    let id: UInt64
}
