extension TimerSchedule {
    /// The engine's configuration of this schedule, delivering with `delivery`.
    ///
    /// - Parameters:
    ///   - delivery: The delivery to arm with (the schedule's own, or the main queue for a main-actor handler).
    ///   - now: Reads the schedule's clock; called only for an `at:` deadline with ``PastDeadlinePolicy/throw``.
    /// - Throws: ``TempoError`` naming the first bad value (see ``TempoTimer/init(_:scheduler:handler:)``).
    func configuration(
        delivery: TimerDelivery, now: () -> TimerInstant
    ) throws(TempoError) -> TempoTimer.Configuration {
        let configuration: TempoTimer.Configuration
        switch kind {
        case .every(let interval, let repeats, let first):
            if repeats == .once {
                throw TempoError(
                    .invalidCount, value: "once",
                    message: "a repeating schedule needs more than one tick, got repeats: .once (use .after or .at)")
            }
            configuration = TempoTimer.Configuration(
                every: interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy,
                delivery: delivery, clock: clock)
        case .after(let delay):
            configuration = TempoTimer.Configuration(
                every: delay, repeats: .once, leeway: leeway, delivery: delivery, clock: clock)
        case .at(let instant, let ifPast):
            configuration = try TempoTimer.Configuration.oneShot(
                at: instant, ifPast: ifPast, leeway: leeway, delivery: delivery, clock: clock,
                now: ifPast == .throw ? now() : instant)
        }
        try configuration.validate()
        return configuration
    }
}

extension TimerSchedule {
    /// The schedule of the older `every:`/`repeats:` spelling, where `repeats: .once` made a one-shot: an `.at`
    /// one-shot for an absolute first tick, otherwise one due after the first-tick delay.
    ///
    /// - Throws: ``TempoError`` with ``TempoError/Code/clockMismatch`` for a first-tick deadline on another clock.
    static func repeating(
        _ interval: Duration, repeats: TimerRepeats, first: FirstTick, leeway: Duration, latePolicy: LateTickPolicy,
        delivery: TimerDelivery, clock: TimerClock
    ) throws(TempoError) -> TimerSchedule {
        guard repeats == .once else {
            return .every(
                interval, repeats: repeats, first: first, leeway: leeway, latePolicy: latePolicy, delivery: delivery,
                clock: clock)
        }
        switch first {
        case .at(let deadline):
            return TimerSchedule(
                kind: .at(try deadline.instant(on: clock), .fireImmediately), leeway: leeway, latePolicy: latePolicy,
                delivery: delivery, clock: clock)
        case .after(let delay):
            return .after(delay, leeway: leeway, delivery: delivery, clock: clock)
        case .afterInterval:
            return .after(interval, leeway: leeway, delivery: delivery, clock: clock)
        }
    }
}
