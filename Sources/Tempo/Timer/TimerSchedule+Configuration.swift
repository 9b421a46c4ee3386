extension TimerSchedule {
    /// ``configuration(now:)`` reading `scheduler`'s clock only when the schedule needs it (an `at:` deadline
    /// with ``PastDeadlinePolicy/throw``): the common path makes no closure that holds the scheduler and the schedule.
    @inline(__always)
    func configuration(
        scheduler: borrowing any TimerScheduler
    ) throws(TempoError) -> TempoTimer.Configuration {
        if case .at(_, let ifPast) = kind, ifPast == .throw {
            let now = scheduler.now(clock)
            return try configuration { now }
        }
        return try configuration { preconditionFailure("only an at: deadline that throws reads") }
    }

    /// The engine's configuration of this schedule: its timing (the timer takes the delivery and the label beside it).
    ///
    /// - Parameters:
    ///   - now: Reads the schedule's clock; called only for an `at:` deadline with ``PastDeadlinePolicy/throw``.
    /// - Throws: ``TempoError`` naming the first bad value (see ``TempoTimer/init(_:scheduler:handler:)``).
    @inline(__always)
    func configuration(now: () -> TimerInstant) throws(TempoError) -> TempoTimer.Configuration {
        let configuration: TempoTimer.Configuration
        switch kind {
        case .every(let interval, let repeats, let first):
            configuration = TempoTimer.Configuration(
                interval: interval, repeats: repeats, firstTick: first, leeway: leeway, latePolicy: latePolicy,
                clock: clock)
        case .after(let delay) where TempoError.isValidInterval(delay):
            // The common one-shot, checked here as `validate()` would: the delay (its interval) is valid just above,
            // and a one-shot's repeat count and first tick are fixed, so only the caller's leeway is left.
            try TempoError.validateLeeway(leeway)
            return TempoTimer.Configuration(interval: delay, repeats: .once, leeway: leeway, clock: clock)
        case .after(let delay):
            // Below 1 ns (zero: at once) the delay is a first-tick delay, as in `first: .after(_:)`: one rule for
            // delays, and one message for a delay out of range. A one-shot never waits for its interval.
            try TempoError.validateDelay(delay)
            configuration = TempoTimer.Configuration(
                interval: .nanoseconds(1), repeats: .once, firstTick: .after(delay), leeway: leeway,
                clock: clock)
        case .at(let instant, let ifPast):
            configuration = try TempoTimer.Configuration.oneShot(
                at: instant, ifPast: ifPast, leeway: leeway, clock: clock,
                now: ifPast == .throw ? now() : instant)
        }
        try configuration.validate()
        return configuration
    }
}
