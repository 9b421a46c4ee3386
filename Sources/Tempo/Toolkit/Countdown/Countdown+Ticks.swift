extension Countdown {
    /// Performs a start action outside the lock: creates and starts the run's timer, whose grid ends exactly at
    /// the deadline, and hands it to the machine, cancelling it if the run ended meanwhile.
    ///
    /// No lock is held here, so the countdown's lock is never taken around the timer's (no lock order).
    func perform(_ action: CountdownStateMachine.StartAction) {
        guard case .arm(let arm) = action else { return }
        let configuration = TempoTimer.Configuration(
            every: period,
            first: .after(arm.delay),
            leeway: leeway,
            latePolicy: .coalesce,
            delivery: delivery,
            clock: clock
        )
        let generation = arm.generation
        // The period and leeway were validated in init, and the machine keeps the delay within bounds.
        guard
            let timer = try? TempoTimer(
                configuration: configuration, scheduler: scheduler,
                handler: { [weak self] _ in
                    self?.boundaryReached(generation: generation)
                })
        else { preconditionFailure("countdown timer configuration was validated in init") }
        // Started before it is handed back, so a run that ended in between is seen by `timerStarted` and the
        // timer cancelled here; its ticks meanwhile are stale for the machine.
        timer.start()
        if machine.withLock({ $0.timerStarted(timer, generation: generation) }) == .cancel {
            timer.cancel()
        }
    }

    /// Sends an event to the machine under the lock, with the clock read just before it.
    func event<Action>(_ body: (inout CountdownStateMachine, TimerInstant) -> Action) -> Action {
        let now = scheduler.now(clock)
        return machine.withLock { body(&$0, now) }
    }

    /// Performs a stop action outside the lock.
    func perform(_ action: CountdownStateMachine.StopAction) {
        guard case .cancelTimer(let timer) = action else { return }
        timer?.cancel()
    }

    private func boundaryReached(generation: UInt64) {
        let now = scheduler.now(clock)
        switch machine.withLock({ $0.boundaryReached(generation: generation, now: now) }) {
        case .tick(let left):
            onTick(left)
        case .finish(let timer):
            timer?.cancel()
            onFinish()
        case .none:
            break
        }
    }
}
