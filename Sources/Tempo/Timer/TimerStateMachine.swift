/// The state of one ``TempoTimer``, as a value type that returns what to do after the lock is released.
///
/// Every transition is pure bookkeeping: arming and disarming the scheduler, and running handlers, are
/// returned as ``Effects`` for the caller to perform outside the lock, so handlers may call any method
/// on their own timer.
struct TimerStateMachine {
    typealias Handler = @Sendable (TimerTick) -> Void
    typealias StateHandler = @Sendable (TimerState) -> Void

    /// A unit of work in the timer's serial mailbox.
    enum Delivery {
        /// Scheduled slots `first...last` (0-based), due from `firstDue` every `interval`.
        case ticks(first: Int, last: Int, firstDue: TimerInstant, interval: Duration, missed: Int, epoch: UInt64)
        case manual(index: Int, requested: TimerInstant, cancelEpoch: UInt64)
        case state(TimerState)
    }

    /// What the caller must do once the lock is released.
    struct Effects {
        var disarm: ScheduledAction?
        var arm: (deadline: TimerInstant, leeway: Duration, generation: UInt64)?
        var scheduleDrain = false
    }

    /// The next thing the drain loop runs.
    enum Step {
        case tick(TimerTick, [Handler])
        case state(TimerState, StateHandler)
        case targetGone
        case idle
    }

    private(set) var config: TempoTimer.Configuration
    private(set) var phase: TimerState = .idle
    private(set) var fireCount = 0

    /// The anchored grid of the current schedule: due instants, claimed slots and the late-tick policy.
    private var grid: TickGrid
    private var pausedRemaining = Duration.zero

    private var armGeneration: UInt64 = 0
    private var armed: ScheduledAction?
    /// Bumped by cancel and reset: queued scheduled ticks of an older epoch are dropped.
    private var epoch: UInt64 = 0
    /// Scheduled ticks that were still queued when ``start(now:)`` began a new run: they were due before the
    /// restart and are still delivered, but are not counted in the new run's ``fireCount``.
    private var previousRunTicks = 0
    /// Bumped by cancel: queued manual fires of an older value are dropped.
    private var cancelEpoch: UInt64 = 0

    private var mailbox: [Delivery] = []
    private var mailboxHead = 0
    private var drainScheduled = false
    /// A scheduled tick was handed to delivery and the next deadline is armed only once it has run, so
    /// that a slow handler (or a busy queue) makes the next wake-up late and the late-tick policy sees
    /// every slot that passed meanwhile, instead of one queued tick per interval.
    private var armAfterDelivery = false

    /// Handlers in the order added, and their ids (kept apart so a tick hands out the array without copying).
    private(set) var handlers: [Handler] = []
    private var handlerIDs: [UInt64] = []
    private var nextObserverID: UInt64 = 1
    private var stateHandler: StateHandler?

    init(config: TempoTimer.Configuration, handler: Handler?) {
        self.config = config
        self.grid = Self.grid(config, first: .zero)
        if let handler {
            handlers.append(handler)
            handlerIDs.append(0)
        }
    }

    // MARK: Queries

    var remainingCount: Int? {
        config.repeats.total.map { _ in grid.remainingSlots }
    }

    /// The next slot (0-based) not yet handed to delivery, folded in or dropped.
    var nextSlot: Int { grid.nextSlot }

    var pendingDeliveries: Int { mailbox.count - mailboxHead }

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

    private static func grid(_ config: TempoTimer.Configuration, first: TimerInstant) -> TickGrid {
        TickGrid(first: first, interval: config.interval, count: config.repeats.total, policy: config.latePolicy)
    }

    /// The time left until the next tick: live while running, frozen while paused, `nil` otherwise.
    func timeUntilNextTick(now: TimerInstant) -> Duration? {
        switch phase {
        case .running: grid.timeUntilNextSlot(from: now)
        case .paused: pausedRemaining
        case .idle, .finished, .cancelled: nil
        }
    }

    // MARK: Lifecycle

    mutating func start(now: TimerInstant) -> Effects {
        switch phase {
        case .running:
            return Effects()
        case .paused:
            return resume(now: now)
        case .idle, .finished, .cancelled:
            fireCount = 0
            previousRunTicks = queuedScheduledTicks
            if case .at(let instant) = config.firstTick {
                grid = Self.grid(config, first: instant)
            } else {
                grid = Self.grid(config, first: now + config.firstDelay)
            }
            var effects = setPhase(.running)
            effects.arm = nextArm()
            return effects
        }
    }

    mutating func pause(now: TimerInstant) -> Effects {
        guard phase == .running else { return Effects() }
        pausedRemaining = grid.timeUntilNextSlot(from: now) ?? .zero
        var effects = setPhase(.paused)
        effects.disarm = disarm()
        return effects
    }

    mutating func resume(now: TimerInstant) -> Effects {
        guard phase == .paused else { return Effects() }
        grid.moveNextSlot(to: now + pausedRemaining)
        var effects = setPhase(.running)
        effects.arm = nextArm()
        return effects
    }

    mutating func reset(now: TimerInstant, interval: Duration?) -> Effects {
        if let interval { config.interval = interval }
        epoch &+= 1
        previousRunTicks = 0
        fireCount = 0
        grid = Self.grid(config, first: now + config.firstDelay)
        var effects = Effects()
        effects.disarm = disarm()
        if phase == .paused {
            pausedRemaining = config.firstDelay
            return effects
        }
        let changed = setPhase(.running)
        effects.scheduleDrain = changed.scheduleDrain
        effects.arm = nextArm()
        return effects
    }

    mutating func cancel() -> Effects {
        guard phase != .cancelled else { return Effects() }
        epoch &+= 1
        previousRunTicks = 0
        cancelEpoch &+= 1
        var effects = setPhase(.cancelled)
        effects.disarm = disarm()
        return effects
    }

    mutating func fire(now: TimerInstant) -> (fired: Bool, effects: Effects) {
        guard phase != .cancelled else { return (false, Effects()) }
        let index = nextSlot < .max ? nextSlot + 1 : .max
        return (true, enqueue(.manual(index: index, requested: now, cancelEpoch: cancelEpoch)))
    }

    mutating func setLeeway(_ leeway: Duration) -> Effects {
        config.leeway = leeway
        guard phase == .running, armed != nil else { return Effects() }
        var effects = Effects()
        effects.disarm = disarm()
        effects.arm = nextArm()
        return effects
    }

    // MARK: Scheduler callbacks

    /// Records the handle of an arm request; returns `false` when the request is stale and must be cancelled.
    mutating func armed(_ action: ScheduledAction, generation: UInt64) -> Bool {
        guard generation == armGeneration, phase == .running, armed == nil else { return false }
        armed = action
        return true
    }

    /// The armed deadline passed: hand the due slots to delivery according to the late-tick policy.
    mutating func deadlineReached(generation: UInt64, now: TimerInstant) -> Effects {
        guard generation == armGeneration, phase == .running else { return Effects() }
        armed = nil
        // This arm is used up: a handle for it that is recorded late (the action can run before
        // `schedule` returns) must not be mistaken for a live one.
        armGeneration &+= 1
        var effects = Effects()
        switch grid.claim(at: now) {
        case .notDue:
            // The scheduler never runs early; this only guards against a clock that disagrees with it.
            effects.arm = nextArm()
            return effects
        case .deliver(let first, let last, let missed):
            effects = enqueue(tickDelivery(first: first, last: last, missed: missed, now: now))
        case .dropped, .finished:
            break
        }
        if grid.isFinished {
            let finished = setPhase(.finished)
            effects.scheduleDrain = effects.scheduleDrain || finished.scheduleDrain
        } else if pendingScheduledTicks {
            armAfterDelivery = true
        } else {
            effects.arm = nextArm()
        }
        return effects
    }

    /// The number of scheduled ticks of the current epoch in the mailbox (saturating).
    private var queuedScheduledTicks: Int {
        var count = 0
        for case .ticks(let first, let last, _, _, _, let tickEpoch) in mailbox[mailboxHead...] where tickEpoch == epoch
        {
            let (sum, overflow) = count.addingReportingOverflow(last - first + 1)
            count = overflow ? .max : sum
        }
        return count
    }

    /// Whether the mailbox holds scheduled ticks of the current epoch.
    private var pendingScheduledTicks: Bool {
        mailbox[mailboxHead...].contains { delivery in
            if case .ticks(_, _, _, _, _, let tickEpoch) = delivery { return tickEpoch == epoch }
            return false
        }
    }

    /// A scheduled tick's handlers returned: arm the next deadline if it was held back for this delivery.
    mutating func scheduledTickDelivered() -> Effects {
        guard armAfterDelivery, phase == .running, !pendingScheduledTicks else { return Effects() }
        armAfterDelivery = false
        var effects = Effects()
        effects.arm = nextArm()
        return effects
    }

    // MARK: Delivery

    /// Takes the next delivery from the mailbox, dropping stale ones. Ends the drain when empty.
    mutating func nextStep(now: TimerInstant, targetGone: Bool) -> Step {
        while mailboxHead < mailbox.count {
            switch mailbox[mailboxHead] {
            case .ticks(let first, let last, let firstDue, let interval, let missed, let tickEpoch):
                guard tickEpoch == epoch else {
                    popMailbox()
                    continue
                }
                if targetGone { return .targetGone }
                let due = firstDue
                if first < last {
                    mailbox[mailboxHead] = .ticks(
                        first: first + 1,
                        last: last,
                        firstDue: firstDue + interval,
                        interval: interval,
                        missed: 0,
                        epoch: tickEpoch
                    )
                } else {
                    popMailbox()
                }
                if previousRunTicks > 0 {
                    previousRunTicks -= 1
                } else {
                    fireCount += 1
                }
                let lateness = max(.zero, now - due)
                let tick = TimerTick(
                    index: first + 1, due: due, lateness: lateness, missed: missed,
                    overdue: lateness.saturatingAdding(interval, times: missed))
                return .tick(tick, handlers)
            case .manual(let index, let requested, let manualEpoch):
                popMailbox()
                guard manualEpoch == cancelEpoch else { continue }
                let tick = TimerTick(
                    index: index,
                    due: requested,
                    lateness: max(.zero, now - requested),
                    isManual: true
                )
                return .tick(tick, handlers)
            case .state(let state):
                popMailbox()
                guard let stateHandler else { continue }
                return .state(state, stateHandler)
            }
        }
        mailbox.removeAll(keepingCapacity: mailbox.capacity <= 64)
        mailboxHead = 0
        drainScheduled = false
        return .idle
    }

    // MARK: Observers

    mutating func addObserver(_ handler: @escaping Handler) -> UInt64 {
        let id = nextObserverID
        nextObserverID += 1
        handlers.append(handler)
        handlerIDs.append(id)
        return id
    }

    mutating func removeObserver(id: UInt64) -> Handler? {
        guard let index = handlerIDs.firstIndex(of: id) else { return nil }
        handlerIDs.remove(at: index)
        return handlers.remove(at: index)
    }

    /// Removes every handler, the initial one included; returns them for release outside the lock.
    mutating func removeAllObservers() -> [Handler] {
        handlerIDs.removeAll()
        defer { handlers.removeAll() }
        return handlers
    }

    mutating func setStateHandler(_ handler: StateHandler?) -> StateHandler? {
        defer { stateHandler = handler }
        return stateHandler
    }

    // MARK: Helpers

    private func tickDelivery(first: Int, last: Int, missed: Int, now: TimerInstant) -> Delivery {
        // A claimed slot is due at or before `now`, so its instant is representable.
        let firstDue = grid.due(first) ?? now
        return .ticks(
            first: first, last: last, firstDue: firstDue, interval: config.interval, missed: missed, epoch: epoch)
    }

    private mutating func enqueue(_ delivery: Delivery) -> Effects {
        mailbox.append(delivery)
        var effects = Effects()
        if !drainScheduled {
            drainScheduled = true
            effects.scheduleDrain = true
        }
        return effects
    }

    private mutating func popMailbox() {
        mailboxHead += 1
        if mailboxHead == mailbox.count {
            mailbox.removeAll(keepingCapacity: mailbox.capacity <= 64)
            mailboxHead = 0
        }
    }

    private mutating func setPhase(_ newPhase: TimerState) -> Effects {
        guard newPhase != phase else { return Effects() }
        phase = newPhase
        guard stateHandler != nil else { return Effects() }
        return enqueue(.state(newPhase))
    }

    /// An arm request for the grid's next slot, or `nil` when the grid can never be due again (its next slot's
    /// instant is not representable).
    private mutating func nextArm() -> (deadline: TimerInstant, leeway: Duration, generation: UInt64)? {
        armAfterDelivery = false
        armGeneration &+= 1
        return grid.nextDue.map { ($0, config.leeway, armGeneration) }
    }

    private mutating func disarm() -> ScheduledAction? {
        armAfterDelivery = false
        armGeneration &+= 1
        defer { armed = nil }
        return armed
    }
}
