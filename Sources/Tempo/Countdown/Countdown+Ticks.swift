extension Countdown {
    /// Replaces the internal timer with one whose grid ends exactly at the deadline.
    ///
    /// Runs under the lock: creating, starting and cancelling a `TempoTimer` without a state handler runs
    /// no user code.
    func arm(_ state: inout State, now: TimerInstant) {
        disarm(&state)?.cancel()
        let left = state.deadline - now
        let first: TimerInstant
        if left <= .zero {
            first = now
        } else {
            // The last boundary `deadline - m · period` after now: m = ceil(left / period) - 1.
            let whole = left.wholeMultiples(of: period)
            let m = period * Int(clamping: whole) == left ? whole - 1 : whole
            first = state.deadline - period * Int(clamping: m)
        }
        let generation = state.generation
        let configuration = TempoTimer.Configuration(
            every: period,
            first: .at(first),
            leeway: leeway,
            latePolicy: .coalesce,
            delivery: delivery,
            clock: clock
        )
        // The configuration was validated in init; the first tick is an instant, which is never rejected.
        guard
            let timer = try? TempoTimer(
                configuration: configuration, scheduler: scheduler,
                handler: { [weak self] _ in
                    self?.boundaryReached(generation: generation)
                })
        else { preconditionFailure("countdown timer configuration was validated in init") }
        state.timer = timer
        timer.start()
    }

    /// Drops the current timer (returned for the caller to cancel) and invalidates its queued ticks.
    func disarm(_ state: inout State) -> TempoTimer? {
        state.generation &+= 1
        defer { state.timer = nil }
        return state.timer
    }

    private enum Step {
        case tick(Duration)
        case finish(TempoTimer?)
        case stale
    }

    private func boundaryReached(generation: UInt64) {
        let step = state.withLock { state -> Step in
            guard state.generation == generation, state.phase == .running else { return .stale }
            let left = state.deadline - scheduler.now(clock)
            guard left <= .zero else { return .tick(left) }
            state.phase = .finished
            state.remaining = .zero
            return .finish(disarm(&state))
        }
        switch step {
        case .tick(let left):
            onTick(left)
        case .finish(let timer):
            timer?.cancel()
            onFinish()
        case .stale:
            break
        }
    }
}
