import Tempo

extension LatencyProbe {
    /// A ``TimingWheel`` with a 1 µs tick and ``TimerDelivery/immediate`` delivery; each tick's callback
    /// arms the next slot (the wheel's timers are one-shot).
    static func runWheel(_ recorder: LatencyRecorder, progress: (Double) -> Void) throws(TempoError) {
        let wheel = try TimingWheel(
            configuration: TimingWheel.Configuration(resolution: .microseconds(1), delivery: .immediate))
        let ticker = WheelTicker(wheel: wheel, recorder: recorder)
        try ticker.arm(slot: 1)
        recorder.waitUntilDone(progress: progress)
    }
}

/// Re-arms a timing wheel's one-shot timer slot after slot, recording each tick.
private final class WheelTicker: Sendable {
    let wheel: TimingWheel
    let recorder: LatencyRecorder

    init(wheel: TimingWheel, recorder: LatencyRecorder) {
        self.wheel = wheel
        self.recorder = recorder
    }

    func arm(slot: Int) throws(TempoError) {
        _ = try wheel.schedule(at: recorder.due(slot)) { [self] in fired(slot: slot) }
    }

    private func fired(slot: Int) {
        let now = PlatformClock.now(.monotonic)
        // Coalesce like the other backends: slots that are overdue as well fold into this tick.
        let last = recorder.coalescedSlot(from: slot, now: now)
        if recorder.record(slot: last, now: now) { return }
        do {
            try arm(slot: last + 1)
        } catch {
            // A deadline within the measurement is always in the wheel's range; nothing to recover.
            preconditionFailure("cannot re-arm the timing wheel: \(error)")
        }
    }
}
