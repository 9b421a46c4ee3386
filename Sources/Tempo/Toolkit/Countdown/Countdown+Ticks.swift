extension Countdown {
    /// Performs a start action outside the lock: arms the countdown's timer at the run's first boundary, so its grid
    /// ends exactly at the deadline.
    func perform(_ action: CountdownStateMachine.StartAction) {
        guard case .arm = action else { return }
        syncTimer()
    }

    /// Sends an event to the machine under the lock, with the clock read just before it.
    func event<Action>(_ body: (inout CountdownStateMachine, TimerInstant) -> Action) -> Action {
        let now = scheduler.now(clock)
        return machine.withLock { body(&$0, now) }
    }

    /// Performs a stop action outside the lock.
    func perform(_ action: CountdownStateMachine.StopAction) {
        guard case .stopTimer = action else { return }
        syncTimer()
    }

    /// Brings the one internal timer to what the machine wants (armed at the run's first boundary, or stopped),
    /// outside the lock, until no other thread changed the wish meanwhile.
    ///
    /// No lock is held around the timer's calls, so the countdown's lock is never taken around the timer's (no lock
    /// order), and a timer that runs its handler before `rearm` returns (`.immediate` delivery) may call back in.
    /// Every thread that changes the wish (the machine's generation) calls this afterwards and applies the wish until
    /// the generation it applied is still the current one, so whichever thread applies last applies the newest wish:
    /// a `pause()` racing a `start()` never leaves the timer armed for a paused countdown, nor the reverse. Applying
    /// a wish twice re-arms the same first boundary, whose tick repeats the last value and is dropped.
    func syncTimer() {
        var applied: UInt64?
        // Created outside the locks (creating reads the scheduler's clock); one made by a racing thread is dropped
        // idle, never armed.
        let made = timerSlot.withLock { $0 } == nil ? makeTimer() : nil
        while true {
            let wanted = machine.withLock { $0.wantedTimer }
            guard wanted.generation != applied else { return }
            let timer = timerSlot.withLock { slot -> TempoTimer? in
                if slot == nil { slot = made }
                return slot
            }
            if let firstTick = wanted.firstTick {
                timer?.rearm(at: firstTick)
            } else {
                timer?.cancel()
            }
            applied = wanted.generation
        }
    }

    /// The countdown's one timer, idle until a run arms it: a tick every period on the countdown's clock.
    private func makeTimer() -> TempoTimer {
        // The period and leeway were validated in init.
        guard
            let timer = try? TempoTimer(
                ticks, scheduler: scheduler,
                handler: .tick { [weak self] _ in
                    self?.boundaryReached()
                })
        else { preconditionFailure("countdown timer schedule was validated in init") }
        return timer
    }

    private func boundaryReached() {
        let now = scheduler.now(clock)
        switch machine.withLock({ $0.boundaryReached(now: now) }) {
        case .tick(let left):
            onTick(left)
        case .finish:
            syncTimer()
            onFinish()
        case .none:
            break
        }
    }
}
