extension TempoTimer {
    /// Creates a timer, in the ``TimerState/idle`` state; ``start()`` runs it and returns it, so creating and
    /// starting read as one line.
    ///
    /// ```swift
    /// let timer = try TempoTimer(.every(.seconds(1)), handler: .mainActor { tick in label.text = "\(tick.index)" })
    ///     .start()
    /// ```
    ///
    /// Timing is the schedule's (see ``TimerSchedule``); the handler runs as ``TimerHandler`` says. More handlers
    /// can be added with ``addObserver(_:)``.
    ///
    /// - Parameters:
    ///   - schedule: When the timer ticks, with its leeway, late-tick policy, delivery and clock.
    ///   - scheduler: The scheduler that provides time (default ``SystemScheduler/shared``; pass a `VirtualClock`
    ///     in tests).
    ///   - handler: What runs on each tick, or `nil` for none yet.
    /// - Throws: ``TempoError`` naming the bad value: an interval, delay, count, leeway or first-tick delay out of
    ///   range; a deadline more than about 146 years from its clock's origin, or already past with
    ///   ``PastDeadlinePolicy/throw`` (``TempoError/Code/invalidInstant``); a first-tick deadline on another clock
    ///   (``TempoError/Code/clockMismatch``); a main-actor handler with a delivery other than the main queue.
    public convenience init(
        _ schedule: TimerSchedule,
        scheduler: borrowing any TimerScheduler = SystemScheduler.shared,
        handler: TimerHandler? = nil
    ) throws(TempoError) {
        let delivery = try handler?.delivery(for: schedule) ?? schedule.delivery
        // Validated by `configuration(scheduler:)`.
        let configuration = try schedule.configuration(scheduler: scheduler)
        switch handler?.body {
        case .tick(let body):
            try self.init(
                configuration: configuration, delivery: delivery, label: schedule.label, scheduler: scheduler,
                targetIsAlive: handler?.targetIsAlive, handler: body, validated: true)
        case .timer(let body):
            try self.init(
                configuration: configuration, delivery: delivery, label: schedule.label, scheduler: scheduler,
                targetIsAlive: nil, handler: nil, validated: true)
            addObserver(body)
        case nil:
            try self.init(
                configuration: configuration, delivery: delivery, label: schedule.label, scheduler: scheduler,
                targetIsAlive: nil, handler: nil, validated: true)
        }
    }

    /// Creates an idle timer that calls `body` with each tick: ``init(_:scheduler:handler:)`` with
    /// ``TimerHandler/tick(_:)``, as a trailing closure.
    ///
    /// - Parameters:
    ///   - schedule: When the timer ticks.
    ///   - scheduler: The scheduler that provides time.
    ///   - body: Called for each tick.
    /// - Throws: ``TempoError`` as ``init(_:scheduler:handler:)`` does.
    public convenience init(
        _ schedule: TimerSchedule,
        scheduler: borrowing any TimerScheduler = SystemScheduler.shared,
        _ body: consuming @escaping @Sendable (TimerTick) -> Void
    ) throws(TempoError) {
        // `handler: .tick(body)` without the handler value: a plain closure keeps the schedule's delivery and has no
        // target, and building, copying and destroying the value cost three reference counts per timer created.
        let configuration = try schedule.configuration(scheduler: scheduler)
        try self.init(
            configuration: configuration, delivery: schedule.delivery, label: schedule.label, scheduler: scheduler,
            targetIsAlive: nil, handler: consume body, validated: true)
    }

    /// Creates an idle timer that calls `body` with itself and each tick: ``init(_:scheduler:handler:)`` with
    /// ``TimerHandler/timer(_:)``, as a trailing closure.
    ///
    /// - Parameters:
    ///   - schedule: When the timer ticks.
    ///   - scheduler: The scheduler that provides time.
    ///   - body: Called with the timer and each tick.
    /// - Throws: ``TempoError`` as ``init(_:scheduler:handler:)`` does.
    public convenience init(
        _ schedule: TimerSchedule,
        scheduler: borrowing any TimerScheduler = SystemScheduler.shared,
        _ body: @escaping @Sendable (TempoTimer, TimerTick) -> Void
    ) throws(TempoError) {
        try self.init(schedule, scheduler: scheduler, handler: .timer(body))
    }

    /// The timer's schedule as it stands: its interval and leeway reflect ``reset(interval:)`` and
    /// ``setLeeway(_:)``, and a one-shot reports ``TimerSchedule/after(_:leeway:delivery:clock:)`` or
    /// ``TimerSchedule/at(_:ifPast:leeway:delivery:)`` with no interval.
    public var schedule: TimerSchedule {
        let delivery = currentDelivery
        let clock = clock
        return withMachine { $0.schedule(delivery: delivery, clock: clock) }
    }

    /// Moves the next tick to `deadline`; later ticks of a repeating timer keep their spacing after it.
    ///
    /// Running: the pending tick is re-armed (fire and remaining counts are kept). Paused: the timer stays paused,
    /// and ``resume()`` makes the tick due after the time from this call to `deadline`. Idle, finished or
    /// cancelled: the timer starts a new run whose first tick is due at `deadline` (so a fired one-shot is re-armed
    /// without creating a new timer). A deadline already past is a late tick, delivered at once. For an `at:`
    /// one-shot, `deadline` also becomes the deadline that ``reset(interval:)`` re-arms.
    ///
    /// - Parameter deadline: The new due instant; it must be on the timer's ``clock``.
    /// - Throws: ``TempoError`` with ``TempoError/Code/clockMismatch`` when `deadline` is on another clock, or with
    ///   ``TempoError/Code/invalidInstant`` when it is more than about 146 years from the clock's origin; the timer
    ///   is then unchanged.
    public func reschedule(at deadline: TimerDeadline) throws(TempoError) {
        let instant = try deadline.instant(on: clock)
        try TempoError.validateDeadline(instant)
        let now = now()
        perform { $0.reschedule(to: instant, now: now) }
    }

    /// Moves the next tick to `delay` from now, as ``reschedule(at:)`` does.
    ///
    /// - Parameter delay: The time from now to the next tick; zero fires at once. The same rule as for
    ///   ``TimerSchedule/after(_:leeway:delivery:clock:)`` and ``FirstTick/after(_:)``: any delay from zero to
    ///   292 years (`Int64.max` ns).
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidInterval`` for a negative delay or one above
    ///   292 years (`Int64.max` ns); the timer is then unchanged.
    public func reschedule(after delay: Duration) throws(TempoError) {
        try TempoError.validateDelay(delay, name: "reschedule delay")
        let now = now()
        perform { $0.reschedule(to: now + delay, now: now) }
    }

    /// Moves the next tick to `instant` on the timer's clock, as ``reschedule(at:)`` does, for the toolkit's types that
    /// keep one timer for their whole life (`Countdown`, `PlanTimer`): an instant already past is due now, and one more
    /// than 292 years (`Int64.max` ns) from now is due at that maximum (the owner wakes early, finds nothing due
    /// and re-arms), so no instant is refused.
    package func rearm(at instant: TimerInstant) {
        let now = now()
        let delay = min(TempoError.maximumDuration, max(.zero, now.saturatingDuration(to: instant)))
        perform { $0.reschedule(to: now + delay, now: now) }
    }

    /// Starts a one-shot's delay over with a new delay (for the toolkit's one-shot timers, whose delay is a setting of
    /// their own): ``reset(interval:)``, which refuses an interval for a one-shot, without that check.
    func restartDelay(_ delay: Duration?) {
        let now = now()
        perform { $0.reset(now: now, interval: delay) }
    }
}
