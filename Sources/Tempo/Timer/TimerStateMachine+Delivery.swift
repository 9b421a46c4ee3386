/// The ``TimerStateMachine``'s events from the scheduler (an arm recorded, a deadline reached, a tick delivered),
/// the drain of its mailbox, and its observers; the lifecycle events are in TimerStateMachine.swift.
extension TimerStateMachine {
    // MARK: Scheduler callbacks

    /// Records the handle of an arm request; returns `false` when the request is stale and must be cancelled.
    mutating func armed(_ action: ScheduledAction, generation: UInt32) -> Bool {
        guard case .running(.requested) = phase, generation == armGeneration else { return false }
        phase = .running(.armed(action))
        return true
    }

    /// The deadline of the armed action `id` passed (schedulers whose handle is recorded in the critical section
    /// that requested the arm, so that a live callback always finds its handle recorded): as
    /// ``deadlineReached(generation:now:)`` when `id` is the recorded handle's, nothing otherwise.
    mutating func deadlineReached(actionID: UInt64, now: TimerInstant) -> Actions {
        guard case .running(.armed(let action)) = phase, action.id == actionID else { return .none }
        return deadlineReached(generation: armGeneration, now: now)
    }

    /// The armed deadline passed: hand the due slots to delivery according to the late-tick policy.
    mutating func deadlineReached(generation: UInt32, now: TimerInstant) -> Actions {
        guard case .running(let arming) = phase else { return .none }
        switch arming {
        case .requested, .armed:
            guard generation == armGeneration else { return .none }
        case .awaitingDelivery, .never:
            return .none
        }
        // This arm is used up: a handle for it that is recorded late (the action can run before `schedule`
        // returns) must not be mistaken for a live one.
        armGeneration &+= 1
        var actions = Actions()
        switch grid.claim(at: now) {
        case .notDue:
            // The scheduler never runs early; this only guards against a clock that disagrees with it.
            actions.arm(enterRunning())
            return actions
        case .deliver(let first, let last, let missed):
            // A claimed slot is due at or before `now`, so its instant is representable.
            let firstDue = grid.due(first) ?? now
            // At most `LateTickPolicy.maximumBurst` slots per claim, so the count fits 32 bits.
            actions = enqueue(
                .ticks(
                    first: first, firstDue: firstDue, missed: missed, following: UInt32(last - first)))
        case .dropped, .finished:
            break
        }
        if grid.isFinished {
            phase = .finished
            actions = notify(actions)
        } else if mailbox.hasScheduledTicks() {
            phase = .running(.awaitingDelivery)
        } else {
            actions.arm(enterRunning())
        }
        return actions
    }

    /// A scheduled tick's handlers returned: arm the next deadline if it was held back for this delivery.
    mutating func scheduledTickDelivered() -> Actions {
        guard case .running(.awaitingDelivery) = phase, !mailbox.hasScheduledTicks() else {
            return .none
        }
        var actions = Actions()
        actions.arm(enterRunning())
        return actions
    }

    // MARK: Delivery

    /// The handlers a ``Step/tick(_:)`` step runs, taken in the critical section that took the step (see
    /// ``TimerHandlers/lend()``: a lent handler comes back through ``giveBack(_:)``).
    mutating func lendTickHandlers() -> TimerHandlers.Run { handlers.lend() }

    /// Puts back the handler ``lendTickHandlers()`` lent, once its run returned; returns it when it was removed
    /// meanwhile, to be released outside the lock.
    mutating func giveBack(_ lent: consuming TimerHandlers.Lent) -> TimerHandlers.Lent? { handlers.giveBack(lent) }

    /// Whether the mailbox holds a delivery: ``nextStep(now:target:)`` then reads its `now`.
    var hasDeliveries: Bool { mailbox.first != nil }

    /// Takes the next delivery from the mailbox (state changes nobody listens to are dropped). Ends the drain when
    /// empty.
    mutating func nextStep(now: TimerInstant, target: TargetCheck = .unchecked) -> Step {
        assert(drainScheduled, "a drain step was taken with no drain running")
        while let delivery = mailbox.first {
            switch delivery {
            case .ticks(let first, let firstDue, let missed, let following):
                if let targetIsAlive = extras?.targetIsAlive {
                    switch target {
                    case .unchecked: return .checkTarget(targetIsAlive)
                    case .gone: return .targetGone
                    case .alive: break
                    }
                }
                // Queued ticks follow the current interval (a reset, which may change it, removes them).
                let interval = grid.interval
                if following > 0 {
                    mailbox.replaceFirst(
                        with: .ticks(
                            first: first + 1, firstDue: firstDue + interval, missed: 0, following: following - 1))
                } else {
                    mailbox.removeFirst()
                }
                if let extras, extras.previousRunTicks > 0 {
                    extras.previousRunTicks -= 1
                } else {
                    fireCount += 1
                }
                let lateness = max(.zero, now - firstDue)
                let tick = TimerTick(
                    index: first + 1, due: firstDue, lateness: lateness, missed: missed,
                    overdue: lateness.saturatingAdding(interval, times: missed))
                return .tick(tick)
            case .manual(let index, let requested):
                mailbox.removeFirst()
                let tick = TimerTick(
                    index: index, due: requested, lateness: max(.zero, now - requested), isManual: true)
                return .tick(tick)
            case .state(let state):
                mailbox.removeFirst()
                guard let stateHandler = extras?.stateHandler else { continue }
                return .state(state, stateHandler)
            }
        }
        drainScheduled = false
        return .idle
    }

    // MARK: Observers

    mutating func addObserver(_ handler: @escaping Handler) -> UInt64 {
        handlers.add(handler)
    }

    /// Removes the handler `id`; returns whether there was one, and the closure to release outside the lock (`nil`
    /// when a run under way holds it: that run releases it).
    mutating func removeObserver(id: UInt64) -> (found: Bool, handler: Handler?) {
        handlers.remove(id: id)
    }

    /// Removes every handler, the initial one included; returns them for release outside the lock.
    mutating func removeAllObservers() -> TimerHandlers {
        handlers.removeAll()
    }

    mutating func setStateHandler(_ handler: StateHandler?) -> StateHandler? {
        guard handler != nil || extras != nil else { return nil }
        let extras = neededExtras()
        defer { extras.stateHandler = handler }
        return extras.stateHandler
    }
}
