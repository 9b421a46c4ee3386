import Dispatch
import Tempo
import TempoLocks

extension LatencyProbe {
    /// A new one-shot `DispatchSourceTimer` per slot, created by the previous slot's handler.
    static func runDispatchOneShots(_ recorder: LatencyRecorder, progress: (Double) -> Void) {
        let queue = DispatchQueue(label: "tempo.probe.dispatch-oneshot")
        let chain = DispatchChain(recorder: recorder, queue: queue)
        queue.async { chain.arm(slot: 1) }
        recorder.waitUntilDone(progress: progress)
        queue.sync { chain.stop() }
    }

    /// A new one-shot ``TempoTimer`` per slot (`.at(...)`, default delivery), created by the previous handler.
    static func runTempoOneShots(_ recorder: LatencyRecorder, progress: (Double) -> Void) throws(TempoError) {
        let chain = TempoChain(recorder: recorder)
        try chain.arm(slot: 1)
        recorder.waitUntilDone(progress: progress)
        chain.stop()
    }
}

/// The one-shot Dispatch sources of a measurement. `@unchecked Sendable`: `current` is touched only on `queue`.
private final class DispatchChain: @unchecked Sendable {
    private let recorder: LatencyRecorder
    private let queue: DispatchQueue
    private var current: (any DispatchSourceTimer)?

    init(recorder: LatencyRecorder, queue: DispatchQueue) {
        self.recorder = recorder
        self.queue = queue
    }

    /// Arms a source for `slot`; runs on `queue`.
    func arm(slot: Int) {
        current?.cancel()
        let source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: UInt64(recorder.due(slot).nanosecondsRoundedUp)),
            leeway: .nanoseconds(0))
        source.setEventHandler { [self] in
            let now = PlatformClock.now(.monotonic)
            let last = recorder.coalescedSlot(from: slot, now: now)
            if recorder.record(slot: last, now: now) { return }
            arm(slot: last + 1)
        }
        source.resume()
        current = source
    }

    func stop() {
        current?.cancel()
        current = nil
    }
}

/// The one-shot timers of a measurement.
private final class TempoChain: Sendable {
    private let recorder: LatencyRecorder
    private let current = TempoMutex<TempoTimer?>(nil)

    init(recorder: LatencyRecorder) {
        self.recorder = recorder
    }

    func arm(slot: Int) throws(TempoError) {
        let recorder = self.recorder
        let timer = try TempoTimer(.at(.monotonic(recorder.due(slot)), ifPast: .fireImmediately)) { [self] _ in
            let now = PlatformClock.now(.monotonic)
            let last = recorder.coalescedSlot(from: slot, now: now)
            if recorder.record(slot: last, now: now) { return }
            try? arm(slot: last + 1)
        }.start()
        current.withLock { $0 = timer }
    }

    /// Cancels the armed timer and lets go of it: its handler holds the chain, so a chain that kept its last timer
    /// would keep itself (and the recorder) alive through it.
    func stop() {
        current.withLock { $0.take() }?.cancel()
    }
}
