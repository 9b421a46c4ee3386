extension Countdown {
    /// Replaces the internal timer with one whose grid ends exactly at the deadline.
    ///
    /// Runs under the lock: creating, starting and cancelling a `TempoTimer` without a state handler runs
    /// no user code.
    func arm(_ state: inout State, now: TimerInstant) {
        disarm(&state)?.cancel()
        // The display boundaries are the grid `deadline - m · period`; the timer starts at the first one after
        // now (or at once when the deadline has passed). `add(_:)` and restoring keep the time left within
        // `TempoError.maximumDuration`, so the delay is a valid first-tick delay.
        let boundaries = TickGrid(first: state.deadline, interval: period, count: nil, policy: .coalesce)
        let first = state.deadline <= now ? now : boundaries.firstSlot(after: now)?.due ?? now
        let delay = min(max(.zero, now.saturatingDuration(to: first)), TempoError.maximumDuration)
        let generation = state.generation
        let configuration = TempoTimer.Configuration(
            every: period,
            first: .after(delay),
            leeway: leeway,
            latePolicy: .coalesce,
            delivery: delivery,
            clock: clock
        )
        // The period and leeway were validated in init, and the delay is within bounds.
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
            let left = scheduler.now(clock).saturatingDuration(to: state.deadline)
            // Show the boundary the tick stands for (a whole number of periods), not the few microseconds less
            // that a real clock reads by the time the handler runs, which truncation would turn into one less.
            guard left <= .zero else { return .tick(period * Int(clamping: Self.periodsRoundedUp(left, period))) }
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

    /// `ceil(left / period)` for a positive `left`.
    static func periodsRoundedUp(_ left: Duration, _ period: Duration) -> Int128 {
        let (quotient, remainder) = left.attoseconds.quotientAndRemainder(dividingBy: period.attoseconds)
        return remainder > 0 ? quotient + 1 : quotient
    }
}
