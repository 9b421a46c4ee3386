import Dispatch
import Synchronization
import Tempo
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
    /// The measurement's slots on Tempo's one tick grid: slot `k` (from 1) is the grid's slot `k - 1`.
    private let grid: TickGrid
    private let state: TempoMutex<State>
    private let done = DispatchSemaphore(value: 0)

    init(start: TimerInstant, period: Duration, slots: Int) {
        self.start = start
        self.period = period
        self.slots = slots
        self.grid = TickGrid(first: start + period, interval: period, count: slots, policy: .coalesce)
        var initial = State()
        initial.lateness.reserveCapacity(slots)
        state = TempoMutex(initial)
    }

    /// The instant slot `slot` (from 1) is due. The probe validates its period and duration, so every slot's
    /// instant is representable.
    func due(_ slot: Int) -> TimerInstant {
        grid.due(slot - 1) ?? start
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
            state.lateness.append(lateness <= .zero ? 0 : UInt64(lateness.nanoseconds(rounded: .up)))
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
        let slot = grid.slot(at: now)
        return slot == .max ? .max : max(0, slot + 1)
    }

    /// The slot a tick for `slot` that ran at `now` stands for when every overdue slot is coalesced into it.
    func coalescedSlot(from slot: Int, now: TimerInstant) -> Int {
        min(max(slot, self.slot(at: now)), slots)
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
