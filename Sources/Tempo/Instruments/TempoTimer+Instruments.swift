extension TempoTimer {
    /// The timer's label, if its schedule had one (see ``TimerSchedule/labeled(_:fileID:line:)``).
    public var label: TimerLabel? { withMachine { $0.label } }

    /// Where this timer's handlers run, for instrument events.
    var instrumentLane: TimerInstruments.Lane {
        switch engine {
        case .systemInline, .sharedInline: .driverThread
        case .systemPool, .sharedPool: DriverContext.current == nil ? .deliveryPool : .driverThread
        case .systemQueue: .queue
        case .other: .scheduler
        }
    }

    /// The instant handler durations are measured from: the monotonic clock on ``SystemScheduler`` (a wall clock set
    /// while a handler runs must not make it look long or negative), the scheduler's clock otherwise.
    private func durationNow() -> TimerInstant {
        switch engine {
        case .systemPool, .systemInline, .sharedPool, .sharedInline, .systemQueue: PlatformClock.now(.monotonic)
        case .other(let other): other.scheduler.now(other.clock)
        }
    }

    /// Runs `handlers` with `tick` and reports the tick, the handlers' duration and, off the driver thread, a stall
    /// to the instruments: the tick path while an instrument is added (``TimerInstruments/isActive``).
    ///
    /// An ``TimerDelivery/immediate`` handler on ``SystemScheduler`` runs inside a driver thread's due action, and
    /// the driver reports that action's stall itself, with the number of actions it delayed.
    ///
    /// - Returns: The handler the run borrowed, for the drain to give back (see ``TimerHandlers/Run/callAll(_:)``).
    func runInstrumented(_ tick: TimerTick, _ handlers: consuming TimerHandlers.Run) -> TimerHandlers.Lent? {
        let instruments = TimerInstruments.snapshot()
        guard !instruments.entries.isEmpty else {
            return handlers.callAll(tick)
        }
        let label = label
        let clock = clock
        let lane = instrumentLane
        instruments.tickDelivered(TimerInstruments.TickEvent(label: label, clock: clock, lane: lane, tick: tick))
        // On the delivery pool, what waited for a worker while these handlers held theirs (read only when a stall can
        // be reported: a lock round trip).
        let poolMark = lane == .deliveryPool && instruments.stallThreshold != nil ? DeliveryPool.shared.waitMark : nil
        let start = durationNow()
        let lent = handlers.callAll(tick)
        let duration = max(.zero, durationNow() - start)
        instruments.handlerFinished(
            TimerInstruments.HandlerEvent(label: label, clock: clock, lane: lane, index: tick.index, duration: duration)
        )
        guard let threshold = instruments.stallThreshold, duration >= threshold else { return lent }
        let delayed: Int
        switch engine {
        case .systemInline, .sharedInline: return lent
        case .systemPool, .sharedPool: delayed = poolMark.map { DeliveryPool.shared.lanesDelayed(since: $0) } ?? 0
        case .systemQueue, .other: delayed = 0
        }
        instruments.stalled(
            TimerInstruments.StallEvent(label: label, clock: clock, lane: lane, duration: duration, delayed: delayed))
        return lent
    }
}
