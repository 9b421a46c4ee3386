/// The state of one ``TempoTimer``, as a value type whose events return what to do after the lock is released.
///
/// The lifecycle is ``Phase``, an enum whose cases carry their own data (the arming of a running timer; the time
/// left of a paused one is in ``TimerExtras``, so that the phase fits in 14 bytes). Each event returns ``Actions``:
/// how the scheduler's arm changes and whether a drain of the mailbox must start. Arming, disarming and running
/// handlers happen outside the lock, so handlers may call any method on their own timer. An event that the owner
/// must never send in a state (a drain step with no drain running) fails loudly in debug builds and does nothing in
/// release builds.
///
/// Nothing here allocates once the timer has run a tick: the mailbox keeps its first delivery inline and reuses
/// its overflow storage, and a single handler is stored inline. Rarely used state (a state handler, a target check,
/// a first tick other than the default, a nonzero leeway, the time left while paused, ticks still queued from a
/// previous run, the mailbox's overflow) lives in a ``TimerExtras`` object that is only allocated when first
/// needed, and the fields are ordered so that the value has as little padding as possible: a started timer is one
/// object of about 200 bytes. Cancel and reset remove the deliveries they drop from the mailbox at once, so queued
/// deliveries carry no epoch to compare.
struct TimerStateMachine {
    typealias Handler = @Sendable (TimerTick) -> Void
    typealias StateHandler = @Sendable (TimerState) -> Void

    /// Where a running timer stands with the scheduler. A requested or recorded arm is always of generation
    /// ``armGeneration``: every change of that counter leaves these two cases.
    enum Arming {
        /// An arm was requested; its handle is not recorded yet.
        case requested
        /// Armed: the scheduler will call back unless cancelled with the handle.
        case armed(ScheduledAction)
        /// A scheduled tick is in the mailbox: the next deadline is armed once its handlers returned, so that a
        /// slow handler or a busy queue makes the next wake late and the late-tick policy sees every slot that
        /// passed meanwhile, instead of one queued tick per interval.
        case awaitingDelivery
        /// The grid's next slot can never be due (its instant is not representable): nothing is armed.
        case never
    }

    /// The lifecycle, with the data each state needs.
    enum Phase {
        case idle
        case running(Arming)
        /// Paused, with the time left to the next tick in ``TimerExtras/pausedRemaining``.
        case paused
        case finished
        case cancelled

        var state: TimerState {
            switch self {
            case .idle: .idle
            case .running: .running
            case .paused: .paused
            case .finished: .finished
            case .cancelled: .cancelled
            }
        }
    }

    /// The next thing the drain loop runs.
    ///
    /// A tick's handlers are not in the step: the drain copies them with ``tickHandlers`` in the critical section that
    /// takes the step. A step with them is a large enum with reference-counted payloads in three cases, which the
    /// compiler copies and destroys through the type's value witnesses; without them the tick's case holds plain
    /// values only, and the handlers (one closure in the common case) are copied alone.
    enum Step {
        case tick(TimerTick)
        case state(TimerState, StateHandler)
        /// A scheduled tick is next and the timer is bound to a target: call the check outside the lock (its weak
        /// load can release the target's last reference, and the target's deinit may call this timer), then take
        /// the step again with the answer.
        case checkTarget(@Sendable () -> Bool)
        case targetGone
        case idle
    }

    /// What the drain knows of the target before it takes a step.
    enum TargetCheck {
        case unchecked
        case alive
        case gone
    }

    /// How ``TimerRepeats`` was given; the count of ``TimerRepeats/times(_:)`` is the grid's slot count.
    private enum RepeatsKind {
        case once
        case times
        case forever
    }

    // The fields are ordered by size so that no padding is left between them (see the type's comment). Those that
    // the scheduler callbacks, the delivery and the observers (TimerStateMachine+Delivery.swift) use are internal
    // rather than private; only this type and that extension touch them.

    /// The number of scheduled ticks delivered since the last start or reset.
    var fireCount = 0
    /// The anchored grid of the current schedule: due instants, claimed slots and the late-tick policy (and, with
    /// ``repeatsKind``, the repeats of the configuration; the timer keeps the clock and delivery).
    var grid: TickGrid
    private var repeatsKind: RepeatsKind
    var drainScheduled = false
    /// Bumped by every arm request and disarm: a scheduler callback or handle of another generation is stale.
    ///
    /// 32 bits, in what would be padding after the two flags. ``SystemScheduler`` callbacks are checked against the
    /// recorded handle's id instead (see ``deadlineReached(actionID:now:)``); the callback of another scheduler is
    /// checked against this counter, and could only be mistaken for a current one if the timer went through a
    /// multiple of 2^32 arms and disarms between that scheduler starting the callback and the callback taking the
    /// timer's lock.
    var armGeneration: UInt32 = 0
    var phase = Phase.idle
    var mailbox = TimerMailbox()
    var handlers = TimerHandlers()

    @inline(__always)
    init(
        config: borrowing TempoTimer.Configuration, label: borrowing TimerLabel?, handler: consuming Handler?,
        targetIsAlive: (@Sendable () -> Bool)? = nil
    ) {
        switch config.repeats.kind {
        case .once: repeatsKind = .once
        case .times: repeatsKind = .times
        case .forever: repeatsKind = .forever
        }
        // Not `.zero`: a `static let`, whose lazy initialization check (`swift_once`) every timer's creation paid.
        grid = TickGrid(
            first: TimerInstant(offset: .inlineZero), interval: config.interval, count: config.repeats.total,
            policy: config.latePolicy)
        // Read before the condition: `||` takes its right side as a closure, which cannot capture a borrowed value.
        let firstTick = config.firstTick
        let leeway = config.leeway
        if firstTick != .afterInterval || !leeway.isZero || targetIsAlive != nil || label != nil {
            let extras = mailbox.neededExtras()
            extras.firstTick = firstTick
            extras.leeway = leeway
            extras.targetIsAlive = targetIsAlive
            extras.label = copy label
        }
        if let handler { _ = handlers.add(handler) }
    }

    /// The rarely used state, or `nil` while nothing needed it (the mailbox holds it).
    var extras: TimerExtras? { mailbox.extras }

    /// The timer's label, if its schedule had one.
    var label: TimerLabel? { extras?.label }

    /// The extras, allocated on first use.
    mutating func neededExtras() -> TimerExtras {
        mailbox.neededExtras()
    }

    /// How many ticks the timer delivers.
    private var repeats: TimerRepeats {
        switch repeatsKind {
        case .once: .once
        case .times: .times(grid.slotCount)
        case .forever: .forever
        }
    }

    /// When the first tick is due.
    private var firstTick: FirstTick { extras?.firstTick ?? .afterInterval }

    /// How late past its due instant a tick may run.
    var leeway: Duration { extras?.leeway ?? .inlineZero }

    // MARK: Queries

    var state: TimerState { phase.state }

    var remainingCount: Int? {
        repeats.total.map { _ in grid.remainingSlots }
    }

    /// Where a reset puts the first tick: one interval (or the first-tick delay) from now; an `at:` one-shot is
    /// re-armed at its deadline, while a repeating timer's absolute first tick counts as one interval.
    private func resetFirst(now: TimerInstant) -> TimerInstant {
        switch firstTick.kind {
        case .afterInterval: now + grid.interval
        case .after(let delay): now + delay
        case .at(let deadline): repeatsKind == .once ? deadline.instant : now + grid.interval
        }
    }

    /// Whether the timer has a single tick (``TimerSchedule/after(_:leeway:delivery:clock:)`` or
    /// ``TimerSchedule/at(_:ifPast:leeway:delivery:)``).
    var isOneShot: Bool { repeatsKind == .once }

    /// The schedule, with the delivery and clock the timer keeps.
    func schedule(delivery: TimerDelivery, clock: TimerClock) -> TimerSchedule {
        let kind: TimerSchedule.Kind
        switch (repeatsKind, firstTick.kind) {
        case (.once, .at(let deadline)): kind = .at(deadline.instant, .fireImmediately)
        case (.once, .after(let delay)): kind = .after(delay)
        case (.once, .afterInterval): kind = .after(grid.interval)
        default: kind = .every(grid.interval, repeats, firstTick)
        }
        return TimerSchedule(
            kind: kind, leeway: leeway, latePolicy: grid.policy, delivery: delivery, clock: clock, label: label)
    }

    /// Whether the timer is done for good: finished or cancelled, with no delivery queued or running.
    ///
    /// A finished timer whose last tick is still queued (or whose handlers are running) has not ended:
    /// owners such as ``TimerRegistry`` must not treat it as dead before its last handler returned.
    var hasEnded: Bool {
        switch phase {
        case .finished: !drainScheduled
        case .cancelled: true
        case .idle, .running, .paused: false
        }
    }

    /// The time left until the next tick: live while running, frozen while paused, `nil` otherwise.
    func timeUntilNextTick(now: TimerInstant) -> Duration? {
        switch phase {
        case .running: grid.timeUntilNextSlot(from: now)
        case .paused: extras?.pausedRemaining ?? .zero
        case .idle, .finished, .cancelled: nil
        }
    }

    /// A new grid of the current schedule whose first slot is due at `first`.
    private func grid(first: TimerInstant, interval: Duration? = nil) -> TickGrid {
        TickGrid(first: first, interval: interval ?? grid.interval, count: repeats.total, policy: grid.policy)
    }

    // MARK: Lifecycle

    mutating func start(now: TimerInstant) -> Actions {
        switch phase {
        case .running:
            return .none
        case .paused:
            return resume(now: now)
        case .idle, .finished, .cancelled:
            return beginRun(now: now, first: nil)
        }
    }

    /// Begins a new run from idle, finished or cancelled: fire count back to 0, the first slot due at `first` (or
    /// as the first tick says).
    @inline(__always)
    private mutating func beginRun(now: TimerInstant, first: TimerInstant?) -> Actions {
        fireCount = 0
        // An empty mailbox (the usual case) has no ticks to count: counting them copied the mailbox, its extras'
        // reference included.
        let queued = mailbox.first == nil ? 0 : mailbox.scheduledTicks()
        // The extras are read once: the first tick and the count of queued ticks both live there.
        let extras = mailbox.extras
        if let extras {
            extras.previousRunTicks = queued
        } else if queued > 0 {
            neededExtras().previousRunTicks = queued
        }
        if let first {
            grid.restart(first: first)
        } else {
            switch extras?.firstTick.kind {
            case .none, .afterInterval: grid.restart(first: now + grid.interval)
            case .after(let delay): grid.restart(first: now + delay)
            case .at(let deadline): grid.restart(first: deadline.instant)
            }
        }
        var actions = Actions()
        actions.arm(enterRunning())
        return notify(actions)
    }

    /// Moves the next tick to `instant`, keeping the schedule's spacing after it.
    ///
    /// Running: the pending deadline is replaced (the fire and remaining counts are kept). Paused: the time left
    /// becomes the time from `now` to `instant` (zero if past), and the timer stays paused. Idle, finished or
    /// cancelled: a new run begins whose first tick is due at `instant`. An instant already past is a late tick.
    /// For an `at:` one-shot `instant` also becomes its deadline, which a later reset re-arms.
    mutating func reschedule(to instant: TimerInstant, now: TimerInstant) -> Actions {
        if repeatsKind == .once, case .at(let deadline) = firstTick.kind {
            neededExtras().firstTick = .at(TimerDeadline(instant, clock: deadline.clock))
        }
        switch phase {
        case .running(let arming):
            var actions = Actions()
            actions.disarm(disarm(arming))
            grid.moveNextSlot(to: instant)
            actions.arm(enterRunning())
            return actions
        case .paused:
            grid.moveNextSlot(to: instant)
            neededExtras().pausedRemaining = max(.zero, now.saturatingDuration(to: instant))
            return .none
        case .idle, .finished, .cancelled:
            return beginRun(now: now, first: instant)
        }
    }

    mutating func pause(now: TimerInstant) -> Actions {
        guard case .running(let arming) = phase else { return .none }
        var actions = Actions()
        actions.disarm(disarm(arming))
        neededExtras().pausedRemaining = grid.timeUntilNextSlot(from: now) ?? .zero
        phase = .paused
        return notify(actions)
    }

    mutating func resume(now: TimerInstant) -> Actions {
        guard case .paused = phase else { return .none }
        let remaining = extras?.pausedRemaining ?? .zero
        grid.moveNextSlot(to: now + remaining)
        var actions = Actions()
        actions.arm(enterRunning())
        return notify(actions)
    }

    mutating func reset(now: TimerInstant, interval: Duration?) -> Actions {
        if let interval { grid = grid(first: grid.nextDue ?? now, interval: interval) }
        mailbox.removeTicks(andManualFires: false)
        extras?.previousRunTicks = 0
        fireCount = 0
        let first = resetFirst(now: now)
        grid = grid(first: first)
        var actions = Actions()
        switch phase {
        case .paused:
            neededExtras().pausedRemaining = max(.zero, now.saturatingDuration(to: first))
            return actions
        case .running(let arming):
            actions.disarm(disarm(arming))
            actions.arm(enterRunning())
            return actions
        case .idle, .finished, .cancelled:
            actions.arm(enterRunning())
            return notify(actions)
        }
    }

    mutating func cancel() -> Actions {
        var actions = Actions()
        switch phase {
        case .cancelled:
            return .none
        case .running(let arming):
            actions.disarm(disarm(arming))
        case .idle, .paused, .finished:
            break
        }
        mailbox.removeTicks(andManualFires: true)
        extras?.previousRunTicks = 0
        phase = .cancelled
        return notify(actions)
    }

    mutating func fire(now: TimerInstant) -> (fired: Bool, actions: Actions) {
        if case .cancelled = phase { return (false, .none) }
        let next = grid.nextSlot
        let index = next < .max ? next + 1 : .max
        return (true, enqueue(.manual(index: index, requested: now)))
    }

    mutating func setLeeway(_ leeway: Duration) -> Actions {
        if leeway != .zero || extras != nil { neededExtras().leeway = leeway }
        guard case .running(.armed(let action)) = phase else { return .none }
        var actions = Actions()
        actions.disarm(disarm(.armed(action)))
        actions.arm(enterRunning())
        return actions
    }

    // MARK: Helpers

    /// Enters `.running` with an arm request for the grid's next slot (or `.never` when it cannot be due).
    @inline(__always)
    mutating func enterRunning() -> Arm? {
        armGeneration &+= 1
        guard let deadline = grid.nextDue else {
            phase = .running(.never)
            return nil
        }
        phase = .running(.requested)
        return Arm(deadline: deadline, leeway: leeway, generation: armGeneration)
    }

    /// Forgets the current arm; returns the handle to cancel, if one was recorded.
    private mutating func disarm(_ arming: Arming) -> ScheduledAction? {
        armGeneration &+= 1
        if case .armed(let action) = arming { return action }
        return nil
    }

    mutating func enqueue(_ delivery: TimerMailbox.Delivery) -> Actions {
        mailbox.append(delivery)
        var actions = Actions()
        if !drainScheduled {
            drainScheduled = true
            actions.startDrain = true
        }
        return actions
    }

    /// Queues a state-change notification for the phase just entered, if someone listens.
    @inline(__always)
    mutating func notify(_ actions: Actions) -> Actions {
        guard extras?.stateHandler != nil else { return actions }
        var actions = actions
        actions.startDrain = enqueue(.state(phase.state)).startDrain || actions.startDrain
        return actions
    }
}
