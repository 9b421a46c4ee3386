import Dispatch
import Synchronization
import TempoLocks

/// Collects the lateness of one measurement's ticks; fed from the backend's thread or queue.
final class LatencyRecorder: Sendable {
    private struct State {
        var lateness: [UInt64] = []
        var lastSlot = 0
        var missed = 0
        var early = 0
        var lastOffset = Duration.zero
    }

    let start: TimerInstant
    let period: Duration
    let slots: Int
    private let state: TempoMutex<State>
    private let done = DispatchSemaphore(value: 0)

    init(start: TimerInstant, period: Duration, slots: Int) {
        self.start = start
        self.period = period
        self.slots = slots
        var initial = State()
        initial.lateness.reserveCapacity(slots)
        state = TempoMutex(initial)
    }

    /// The instant slot `slot` (from 1) is due.
    func due(_ slot: Int) -> TimerInstant {
        start + period * slot
    }

    /// Records a tick that ran at `now` for slots up to `slot` (from 1). Returns `true` once the last slot
    /// has been recorded.
    ///
    /// The lateness is measured from the first slot not yet recorded: the deadline the backend was waiting
    /// for. Slots between it and `slot` were folded into this tick and count as missed.
    @discardableResult
    func record(slot: Int, now: TimerInstant) -> Bool {
        let finished = state.withLock { state -> Bool in
            guard slot > state.lastSlot, state.lastSlot < slots else { return false }
            let lateness = now - due(state.lastSlot + 1)
            if lateness < .zero { state.early += 1 }
            state.lateness.append(lateness <= .zero ? 0 : UInt64(lateness.nanosecondsRoundedUp))
            state.missed += slot - state.lastSlot - 1
            state.lastSlot = slot
            state.lastOffset = now - due(slot)
            return slot >= slots
        }
        if finished { done.signal() }
        return finished
    }

    /// Records the next tick of a source that reports how many slots passed since its last handler run.
    @discardableResult
    func record(fires: Int, now: TimerInstant) -> Bool {
        let slot = state.withLock { $0.lastSlot } + max(fires, 1)
        return record(slot: min(slot, slots), now: now)
    }

    /// The slot after which `now` falls (0 before the first slot is due).
    func slot(at now: TimerInstant) -> Int {
        Int(clamping: (now - start).wholeMultiples(of: period))
    }

    /// Blocks until the last slot is recorded, reporting progress about five times a second.
    func waitUntilDone(progress: (Double) -> Void) {
        while done.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            let elapsed = slot(at: PlatformClock.now(.monotonic))
            progress(min(1, max(0, Double(elapsed) / Double(slots))))
        }
        progress(1)
    }

    func samples(backend: LatencyProbe.Backend) -> LatencyProbe.Samples {
        state.withLock { state in
            LatencyProbe.Samples(
                backend: backend,
                period: period,
                slots: slots,
                latenessNanoseconds: state.lateness,
                missed: state.missed,
                early: state.early,
                drift: state.lastOffset
            )
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds, rounded up; negative durations are rounded toward zero.
    var nanosecondsRoundedUp: Int64 {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        return Int64(remainder > 0 ? quotient + 1 : quotient)
    }
}
