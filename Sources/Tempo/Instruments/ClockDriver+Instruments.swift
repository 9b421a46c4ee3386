extension ClockDriver {
    /// Runs a wake's due work as the plain loop of `wake` does, timing each action, and reports the clock's pending
    /// count and every action that held the thread for a stall threshold or longer: the driver's loop while an
    /// instrument is added (``TimerInstruments/isActive``).
    ///
    /// The delayed count of a stall is what waited behind the action on this thread: the wake's later due actions,
    /// and the default-delivery mailboxes taken so far (the one the thread drains after them, and those it hands to
    /// the delivery pool after them). Durations are read on the monotonic
    /// clock whatever the driver's clock, so that a wall clock set meanwhile cannot fake or hide a stall.
    func runDueInstrumented(_ context: DriverContext) {
        let instruments = TimerInstruments.snapshot()
        if !instruments.entries.isEmpty {
            instruments.pendingTimers(TimerInstruments.PendingEvent(clock: clock, count: pendingCount))
        }
        let threshold = instruments.stallThreshold
        var index = 0
        while index < context.due.count {
            let work = context.due[index].1
            let start = PlatformClock.now(.monotonic)
            work.run()
            let held = PlatformClock.now(.monotonic) - start
            if let threshold, held >= threshold {
                let delayed = context.due.count - index - 1 + (context.mailbox == nil ? 0 : 1) + context.gatheredCount
                instruments.stalled(
                    TimerInstruments.StallEvent(
                        label: work.instrumentLabel, clock: clock, lane: .driverThread, duration: held,
                        delayed: delayed))
            }
            index += 1
        }
    }
}

extension CompactDeadlineQueue.Work {
    /// The label of the timer this work wakes, if it wakes a labeled timer.
    var instrumentLabel: TimerLabel? {
        switch self {
        case .target(.timer(let timer), _), .target(.pooledTimer(let timer), _): timer.label
        case .target(.wheel, _), .action: nil
        }
    }
}
