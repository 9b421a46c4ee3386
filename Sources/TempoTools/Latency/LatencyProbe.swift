public import Tempo

/// Measures how punctually a periodic timer wakes up, in the manner of `cyclictest`.
///
/// Each measurement arms one backend to tick every `period` on the monotonic clock, anchored at the
/// instant the measurement starts: slot `k` is due at `start + k · period`. In its handler the probe reads
/// the monotonic clock and records how late the tick ran after the deadline it was waiting for (the
/// first slot not yet delivered), as `cyclictest` does. When later slots are overdue as well, every
/// backend folds them into that tick (like ``LateTickPolicy/coalesce``) and they count as missed.
///
/// Measurements block the calling thread until they finish. Backends never run at the same time (on a
/// small machine they would compete for the same cores); ``measure(_:every:for:rounds:progress:)``
/// interleaves them in rounds, so that a change in the machine's load during the run falls on every
/// backend alike.
///
/// Thread-safety: ``measure(_:every:for:progress:)`` may be called from any thread; the backends run on
/// their own threads and queues.
public enum LatencyProbe {
    /// A way of waking up periodically.
    public enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
        /// The floor: a dedicated thread with 1 ns timer slack sleeping with
        /// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` until each slot. Nothing in user space wakes
        /// up sooner after a deadline, so the other backends are compared with it.
        case floor
        /// A `DispatchSourceTimer` with leeway 0 and the `.strict` flag, repeating every period.
        case dispatchSource = "dispatch"
        /// A ``TempoTimer`` with its defaults: delivery on a private serial queue, leeway 0.
        case tempoDefault = "tempo-default"
        /// A ``TempoTimer`` with ``TimerDelivery/immediate`` delivery (on the scheduler's driver thread) and
        /// leeway 0: Tempo's most punctual configuration.
        case tempoPrecise = "tempo-precise"
        /// A ``TimingWheel`` with a 1 µs tick and ``TimerDelivery/immediate`` delivery, whose callback arms
        /// the next slot (the wheel's timers are one-shot).
        case wheel
        /// One-shot `DispatchSourceTimer`s (leeway 0, `.strict`): each handler creates the source for the next
        /// slot, as code that re-arms a one-shot timer does.
        case dispatchOneShot = "dispatch-oneshot"
        /// One-shot ``TempoTimer``s with the default delivery, created with `.at(...)` by the previous handler.
        case tempoOneShot = "tempo-oneshot"

        /// The backend's command-line name, for example `tempo-precise`.
        public var description: String { rawValue }

        /// A one-line explanation of the backend, for reports.
        public var summary: String {
            switch self {
            case .floor: "clock_nanosleep(TIMER_ABSTIME) thread, timer slack 1 ns"
            case .dispatchSource: "DispatchSourceTimer, leeway 0, .strict"
            case .tempoDefault: "TempoTimer, default delivery (shared pool)"
            case .tempoPrecise: "TempoTimer, .immediate delivery, leeway 0"
            case .wheel: "TimingWheel, tick 1 µs, .immediate delivery"
            case .dispatchOneShot: "a new one-shot DispatchSourceTimer per slot, leeway 0, .strict"
            case .tempoOneShot: "a new one-shot TempoTimer(.at(...)) per slot, default delivery"
            }
        }
    }

    /// The outcome of one measurement.
    public struct Samples: Sendable {
        /// The backend measured.
        public let backend: Backend
        /// The period it ticked at.
        public let period: Duration
        /// The number of slots on the grid (`duration / period`).
        public let slots: Int
        /// The lateness of every measured tick in nanoseconds, in tick order.
        public let latenessNanoseconds: [UInt64]
        /// Slots that were already overdue when an earlier tick ran, and so were folded into it.
        public let missed: Int
        /// Ticks whose handler ran before the deadline it was waiting for (recorded with lateness 0).
        /// Always 0 for a correct backend.
        public let early: Int
        /// How far the last tick ran from its slot on the ideal grid `start + N · period` (`N` its slot).
        ///
        /// An anchored timer keeps this near one tick's lateness however long it runs; a timer that
        /// re-armed relative to its own late wakeups would accumulate the lateness of every tick here.
        public let drift: Duration
        /// Context switches of the whole process during the measurement (`getrusage`): each time a thread
        /// blocked and was woken counts one, so this counts wakeups (plus the probe's own progress wakeups,
        /// about five a second).
        public var contextSwitches = 0
        /// CPU time (user + system) of the whole process during the measurement.
        public var cpuTime = Duration.zero

        /// The number of ticks measured.
        public var ticks: Int { latenessNanoseconds.count }

        /// Process wakeups per measured tick: 1 when a tick costs one thread wakeup; a backend that hops to a
        /// second thread (a delivery queue) or wakes early and spins shows more.
        public var wakeupsPerTick: Double { ticks == 0 ? 0 : Double(contextSwitches) / Double(ticks) }

        /// Process CPU time per measured tick.
        public var cpuPerTick: Duration { ticks == 0 ? .zero : cpuTime / ticks }

        /// These samples followed by those of a later measurement of the same backend; the drift is the later one's.
        func appending(_ later: Samples) -> Samples {
            var merged = Samples(
                backend: backend,
                period: period,
                slots: slots + later.slots,
                latenessNanoseconds: latenessNanoseconds + later.latenessNanoseconds,
                missed: missed + later.missed,
                early: early + later.early,
                drift: later.drift
            )
            merged.contextSwitches = contextSwitches + later.contextSwitches
            merged.cpuTime = cpuTime + later.cpuTime
            return merged
        }
    }

    /// Runs `backend` every `period` for `duration` and records the lateness of each tick.
    ///
    /// - Parameters:
    ///   - backend: The backend to measure.
    ///   - period: The tick period; at least 10 µs.
    ///   - duration: How long to measure; at least one period.
    ///   - progress: Called on the calling thread about five times a second with the fraction done (0...1).
    /// - Returns: The lateness samples.
    /// - Throws: ``TempoError`` naming `period` or `duration` when they are out of range.
    public static func measure(
        _ backend: Backend,
        every period: Duration,
        for duration: Duration,
        progress: (Double) -> Void = { _ in }
    ) throws(TempoError) -> Samples {
        let slots = try slotCount(period: period, duration: duration)
        let start = PlatformClock.now(.monotonic)
        let recorder = LatencyRecorder(start: start, period: period, slots: slots)
        let before = ProcessUsage.now()
        switch backend {
        case .floor: runFloor(recorder, progress: progress)
        case .dispatchSource: runDispatch(recorder, progress: progress)
        case .tempoDefault, .tempoPrecise:
            try runTempo(recorder, delivery: backend == .tempoPrecise ? .immediate : .privateQueue, progress: progress)
        case .wheel: try runWheel(recorder, progress: progress)
        case .dispatchOneShot: runDispatchOneShots(recorder, progress: progress)
        case .tempoOneShot: try runTempoOneShots(recorder, progress: progress)
        }
        let after = ProcessUsage.now()
        var samples = recorder.samples(backend: backend)
        samples.contextSwitches = after.contextSwitches - before.contextSwitches
        samples.cpuTime = after.cpuTime - before.cpuTime
        return samples
    }

    /// Measures several backends one at a time, interleaved: the duration is split into `rounds`, and
    /// each round runs every backend for `duration / rounds`, starting with a different backend each round.
    ///
    /// - Parameters:
    ///   - backends: The backends, each measured once per round.
    ///   - period: The tick period; at least 10 µs.
    ///   - duration: The total measuring time per backend.
    ///   - rounds: How many slices to cut each backend's time into (at least 1, and at most one per period).
    ///   - progress: Called on the calling thread with the fraction of the whole run done (0...1).
    ///   - shouldStop: Asked on the calling thread before each slice; when it returns `true`, no further slice
    ///     starts and the slices measured so far are returned (a stop takes effect at the end of the current
    ///     slice, `duration / rounds` at most).
    /// - Returns: One merged ``Samples`` per backend that was measured at least once, in the order of `backends`.
    /// - Throws: ``TempoError`` naming `period`, `duration` or `rounds` when out of range.
    public static func measure(
        _ backends: [Backend],
        every period: Duration,
        for duration: Duration,
        rounds: Int,
        progress: (Double) -> Void = { _ in },
        shouldStop: () -> Bool = { false }
    ) throws(TempoError) -> [Samples] {
        let slots = try slotCount(period: period, duration: duration)
        guard rounds >= 1, rounds <= slots else {
            throw TempoError(
                .invalidCount, value: "\(rounds)", message: "rounds must be between 1 and \(slots), got \(rounds)")
        }
        let slice = period * (slots / rounds)
        var merged: [Samples?] = Array(repeating: nil, count: backends.count)
        let steps = Double(rounds * backends.count)
        for round in 0..<rounds {
            for offset in backends.indices {
                if shouldStop() { return merged.compactMap { $0 } }
                let index = (offset + round) % backends.count
                let step = Double(round * backends.count + offset)
                let samples = try measure(backends[index], every: period, for: slice) { done in
                    progress((step + done) / steps)
                }
                merged[index] = merged[index].map { $0.appending(samples) } ?? samples
            }
        }
        return merged.compactMap { $0 }
    }

    /// The number of ticks a measurement of `duration` at `period` has: `duration / period`, rounded down.
    ///
    /// - Parameters:
    ///   - period: The tick period; at least 10 µs.
    ///   - duration: The measurement's length; at least one period, at most 100,000,000 periods.
    /// - Returns: The number of slots on the grid.
    /// - Throws: ``TempoError`` naming `period` or `duration` when they are out of range.
    public static func slotCount(period: Duration, duration: Duration) throws(TempoError) -> Int {
        try TempoError.validateInterval(period, name: "period")
        try TempoError.validateInterval(duration, name: "duration")
        guard period >= .microseconds(10) else {
            throw TempoError(
                .invalidInterval, value: period.exactDescription,
                message: "period must be at least 10 µs, got \(period.exactDescription)")
        }
        let slots = Int(clamping: duration.wholeMultiples(of: period))
        guard slots >= 1 else {
            throw TempoError(
                .invalidArgument,
                value: "\(duration)",
                message: "duration \(duration) is shorter than one period of \(period)"
            )
        }
        guard slots <= 100_000_000 else {
            throw TempoError(
                .invalidArgument,
                value: "\(duration)",
                message: "duration \(duration) at period \(period) is \(slots) ticks; the limit is 100,000,000"
            )
        }
        return slots
    }
}
