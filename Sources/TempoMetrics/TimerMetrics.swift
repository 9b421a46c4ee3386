public import CoreMetrics
public import Tempo
import TempoLocks

/// A `TimerInstrument` that records every timer's ticks, misses, stalls, lateness, handler durations and
/// pending counts as swift-metrics metrics, in whatever backend the app bootstrapped (Prometheus, StatsD, OTel).
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
/// try TimerInstruments.add(TimerMetrics())
/// ```
///
/// The metrics (with the default ``prefix`` `tempo`):
///
/// | metric | kind | dimensions | what it counts |
/// | --- | --- | --- | --- |
/// | `tempo_ticks` | counter | `timer`, `clock` | ticks handed to handlers |
/// | `tempo_missed_ticks` | counter | `timer`, `clock` | ticks folded in or dropped by the late-tick policy |
/// | `tempo_stalls` | counter | `timer`, `clock`, `lane` | handlers or actions that held a lane past the threshold |
/// | `tempo_tick_lateness` | timer (ns) | `timer`, `clock` | how late each tick's handlers started (`overdue`) |
/// | `tempo_handler_duration` | timer (ns) | `timer`, `clock` | how long each tick's handlers ran |
/// | `tempo_pending_timers` | gauge | `clock` | actions pending on `SystemScheduler`'s clock |
///
/// Dimensions stay bounded: `timer` is the `TimerLabel`'s name (its site when the name is empty, and
/// `unlabeled` for a timer without a label), never a registry key or an id; `clock` and `lane` have a few values
/// each. Lateness is the tick's `TimerTick.overdue`, which includes the slots a coalesced tick folded in.
///
/// Metric objects are made once per timer name and kept (one lock round trip per event to find them), so the
/// number of names is the number of metric series: keep labels few and fixed.
///
/// Thread-safety: `Sendable`; Tempo calls it from many threads at once.
public final class TimerMetrics: TimerInstrument {
    /// What a stall must last to be counted in `tempo_stalls`.
    public let stallThreshold: Duration
    /// The prefix of every metric's label.
    public let prefix: String
    private let factory: any MetricsFactory
    private let series = TempoMutex<[SeriesKey: Series]>([:])
    private let pending = TempoMutex<[TimerClock: Gauge]>([:])

    private struct SeriesKey: Hashable {
        let timer: String
        let clock: TimerClock
    }

    private final class Series: Sendable {
        let ticks: Counter
        let missed: Counter
        let lateness: CoreMetrics.Timer
        let duration: CoreMetrics.Timer

        init(prefix: String, dimensions: [(String, String)], factory: any MetricsFactory) {
            ticks = Counter(label: "\(prefix)_ticks", dimensions: dimensions, factory: factory)
            missed = Counter(label: "\(prefix)_missed_ticks", dimensions: dimensions, factory: factory)
            lateness = CoreMetrics.Timer(label: "\(prefix)_tick_lateness", dimensions: dimensions, factory: factory)
            duration = CoreMetrics.Timer(label: "\(prefix)_handler_duration", dimensions: dimensions, factory: factory)
        }
    }

    /// Creates the instrument; add it with `TimerInstruments.add(_:)`.
    ///
    /// - Parameters:
    ///   - factory: The metrics backend (default: the one `MetricsSystem.bootstrap` installed).
    ///   - prefix: The prefix of every metric's label (default `tempo`).
    ///   - stallThreshold: What a stall must last to be counted (default 50 ms; `TimerInstruments.add(_:)`
    ///     rejects a value that is not positive).
    public init(
        factory: any MetricsFactory = MetricsSystem.factory, prefix: String = "tempo",
        stallThreshold: Duration = .milliseconds(50)
    ) {
        self.factory = factory
        self.prefix = prefix
        self.stallThreshold = stallThreshold
    }

    private func series(_ label: TimerLabel?, _ clock: TimerClock) -> Series {
        let key = SeriesKey(timer: TimerMetricsNames.timer(label), clock: clock)
        if let existing = series.withLock({ $0[key] }) { return existing }
        // Made outside the lock: a metrics factory may take locks of its own.
        let made = Series(
            prefix: prefix, dimensions: [("timer", key.timer), ("clock", "\(clock)")], factory: factory)
        return series.withLock { series in
            if let existing = series[key] { return existing }
            series[key] = made
            return made
        }
    }

    /// Counts the tick and its missed slots and records its lateness (`TimerTick.overdue`).
    ///
    /// - Parameter event: The tick.
    public func tickDelivered(_ event: TimerInstruments.TickEvent) {
        let series = series(event.label, event.clock)
        series.ticks.increment()
        if event.tick.missed > 0 { series.missed.increment(by: event.tick.missed) }
        series.lateness.recordNanoseconds(Self.nanoseconds(event.tick.overdue))
    }

    /// Records the handlers' duration.
    ///
    /// - Parameter event: The handlers' run.
    public func handlerFinished(_ event: TimerInstruments.HandlerEvent) {
        series(event.label, event.clock).duration.recordNanoseconds(Self.nanoseconds(event.duration))
    }

    /// Counts the stall.
    ///
    /// - Parameter event: The stall.
    public func stalled(_ event: TimerInstruments.StallEvent) {
        // Stalls are rare: the counter is looked up through the factory each time rather than cached.
        Counter(
            label: "\(prefix)_stalls",
            dimensions: [
                ("timer", TimerMetricsNames.timer(event.label)), ("clock", "\(event.clock)"), ("lane", "\(event.lane)"),
            ],
            factory: factory
        ).increment()
    }

    /// Sets the clock's pending gauge.
    ///
    /// - Parameter event: The clock and its count.
    public func pendingTimers(_ event: TimerInstruments.PendingEvent) {
        let gauge =
            pending.withLock { $0[event.clock] }
            ?? {
                let made = Gauge(
                    label: "\(prefix)_pending_timers", dimensions: [("clock", "\(event.clock)")], factory: factory)
                return pending.withLock { gauges in
                    if let existing = gauges[event.clock] { return existing }
                    gauges[event.clock] = made
                    return made
                }
            }()
        gauge.record(event.count)
    }

    /// Whole nanoseconds of `duration` (rounded down), negative durations as 0, saturating at `Int64.max`: the
    /// package's one conversion (`Duration.nanoseconds(rounded:)`) with the floor a metric needs.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        max(0, duration.nanoseconds(rounded: .down))
    }
}
