import CTempoShims
import Dispatch
import Synchronization
import TempoLocks

extension TempoTimer {
    /// Runs `transition` on the state machine under the timer's lock, then the actions it returned once the lock is
    /// released.
    ///
    /// - Parameter stamp: The timer's clock read in nanoseconds just before (see ``nowAndStamp()``), when the caller
    ///   did: on the monotonic clock it serves as the new action's ordering stamp, so that the driver need not read
    ///   the clock again (see ``ClockDriver``).
    func perform(stamp: Int64? = nil, _ transition: (inout TimerStateMachine) -> TimerStateMachine.Actions) {
        // On ``SystemScheduler`` an arm is inserted under the timer's lock, so that its handle is recorded in the same
        // critical section (no second lock round trip, and no window in which the handle is unknown). Lock order:
        // the timer's lock, then the scheduler clock's, which is a leaf (no lock is taken under it, and no work runs
        // under it). Other schedulers are armed after the lock is released (``run(_:)``).
        let actions = machine.withLock { machine in armUnderLock(transition(&machine), &machine, stamp: stamp) }
        run(actions)
    }

    /// Makes the ``SystemScheduler`` arm of `actions` under the timer's lock (see ``perform(_:)``) and returns what is
    /// left to ``run(_:)`` once the lock is released.
    @inline(__always)
    private func armUnderLock(
        _ actions: TimerStateMachine.Actions, _ machine: inout TimerStateMachine, stamp: Int64?
    ) -> TimerStateMachine.Actions {
        var actions = actions
        switch actions.scheduler {
        case .none, .disarm:
            break
        case .arm(let arm):
            if let driver = unretainedDriver {
                driver._withUnsafeGuaranteedRef { armSystem($0, arm, &machine, stamp: stamp) }
                actions.scheduler = .none
            }
        case .replace(let old, let arm):
            if let driver = unretainedDriver {
                driver._withUnsafeGuaranteedRef { armSystem($0, arm, &machine, stamp: stamp) }
                actions.scheduler = .disarm(old)
            }
        }
        return actions
    }

    /// Inserts `arm` into ``SystemScheduler`` and records its handle; called under the timer's lock.
    private func armSystem(
        _ driver: ClockDriver, _ arm: TimerStateMachine.Arm, _ machine: inout TimerStateMachine, stamp: Int64?
    ) {
        let monotonicNow = driver.clock == .monotonic ? stamp : nil
        let target: ScheduledTargetReference
        if engine.isPooled { target = .pooledTimer(self) } else { target = .timer(self) }
        let action = driver.schedule(at: arm.deadline, leeway: arm.leeway, target: target, now: monotonicNow)
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
        if actions.startDrain { startDrain() }
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
        case .systemInline, .sharedInline: drain()
        case .systemPool, .sharedPool:
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
    ///
    /// - Parameter reached: In a mass expiry, the due action (its id and the wake's reading) whose transition this
    ///   drain's first critical section runs before its first step (``scheduledActionReachedOnPool(id:now:)``): one
    ///   lock round trip per timer fewer than a transition and then a drain. When that transition starts no drain (it
    ///   queued nothing, or another drain of the timer runs), this returns after the transition's actions.
    private func drain(reached: (id: UInt64, now: TimerInstant)? = nil) {
        var target = TimerStateMachine.TargetCheck.unchecked
        var delivered = false
        var reached = reached
        // The clock is read, outside the lock, for a step that hands out a delivery (a tick's lateness): a drain starts
        // for one, and after user code ran it reads again only if the mailbox holds another. The last step, which finds
        // the mailbox empty (a one-shot's second), reads none.
        var reading: TimerInstant? = now()
        // The handler the last tick's run borrowed from the timer (see `TimerHandlers.lend()`), given back in the next
        // critical section, which every tick step is followed by.
        var lent: TimerHandlers.Lent?
        while true {
            let (next, handlers, actions, unwanted) = machine.withLock {
                machine -> (
                    TimerStateMachine.Step?, TimerHandlers.Run?, TimerStateMachine.Actions, TimerHandlers.Lent?
                ) in
                // Removed while it ran: released below, outside the lock.
                var unwanted: TimerHandlers.Lent?
                if let handler = lent.take() { unwanted = machine.giveBack(handler) }
                var actions: TimerStateMachine.Actions
                if let (id, wakeNow) = reached {
                    actions = armUnderLock(machine.deadlineReached(actionID: id, now: wakeNow), &machine, stamp: nil)
                    // Not this thread's to drain: nothing was queued, or a drain of the timer runs elsewhere.
                    guard actions.startDrain else { return (.idle, nil, actions, unwanted) }
                    actions.startDrain = false
                } else {
                    actions = delivered ? armUnderLock(machine.scheduledTickDelivered(), &machine, stamp: nil) : .none
                }
                guard let now = reading ?? (machine.hasDeliveries ? nil : .zero) else {
                    return (nil, nil, actions, unwanted)
                }
                let step = machine.nextStep(now: now, target: target)
                guard case .tick = step else { return (step, nil, actions, unwanted) }
                // A store, not an add: only the timer's one running drain writes the count (see `claimsInFlight`).
                claimsInFlight.store(1, ordering: .relaxed)
                return (step, machine.lendTickHandlers(), actions, unwanted)
            }
            withExtendedLifetime(unwanted) {}
            delivered = false
            reached = nil
            // Another scheduler's arm, made outside the lock (a tick's delivery never starts a drain: this one runs).
            run(actions)
            guard let step = consume next else {
                reading = now()
                continue
            }
            reading = nil
            target = .unchecked
            switch consume step {
            case .idle:
                // Given back in the critical section that found nothing left to do.
                assert(lent == nil, "a drain ended with its timer's handler still lent")
                return
            case .checkTarget(let isAlive):
                // Outside the lock: releasing the weak load's reference may run the target's deinit.
                target = isAlive() ? .alive : .gone
                reading = now()
            case .tick(let tick):
                claimsInFlight.store(0, ordering: .releasing)
                // Always there with a tick (taken in the same critical section).
                guard let handlers = consume handlers else {
                    preconditionFailure("a tick step came without its handlers")
                }
                // With no instrument added, one relaxed load (see TempoTimer+Instruments.swift).
                lent = TimerInstruments.isActive ? runInstrumented(tick, handlers) : handlers.callAll(tick)
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
        if let wakeNow {
            // The wake's reading is older than this call: not a stamp for an arm made here (see `perform(stamp:_:)`).
            perform { $0.deadlineReached(actionID: id, now: wakeNow) }
        } else {
            let (now, stamp) = nowAndStamp()
            perform(stamp: stamp) { $0.deadlineReached(actionID: id, now: now) }
        }
    }

    /// ``SystemScheduler`` reached the deadline of the action `id` in a mass expiry, and a delivery-pool thread (or
    /// the driver thread, running its batch) took the timer from the wake's ``LaneBatch``: the transition runs here,
    /// with the wake's reading `now`, in one critical section with the first step of the drain it starts, which runs
    /// here too (the default delivery's place), with no mailbox handed over. Only for timers with the default delivery
    /// (``ScheduledTargetReference/pooledTimer(_:)``).
    func scheduledActionReachedOnPool(id: UInt64, now: TimerInstant) {
        // This thread has not touched the timer yet (the driver thread did not read it): its lines are loaded
        // together, instead of one miss after another as the lock, the state and the handlers are reached.
        ctempo_prefetch_object(Unmanaged.passUnretained(self).toOpaque())
        drain(reached: (id, now))
    }

    /// A pool worker drains the mailbox.
    package func runDeliveries() {
        drain()
    }
}
