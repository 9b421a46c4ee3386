import Metrics
import MetricsTestKit
import Prometheus
import Tempo
import TempoMetrics
import TempoTesting
import Testing

/// `TimerMetrics` against swift-metrics' test backend and swift-prometheus' exposition text, on virtual time.
/// Instruments are process-wide, so each test gives its timers names of its own and reads only those series.
@Suite struct TimerMetricsTests {
    @Test func ticksMissedSlotsAndLatenessAreRecordedPerTimerName() throws {
        let metrics = TestMetrics()
        let registration = try TimerInstruments.add(TimerMetrics(factory: metrics))
        defer { TimerInstruments.remove(registration) }
        let clock = VirtualClock()
        let timer = try TempoTimer(.every(.seconds(1), clock: .continuous).labeled("metrics-backup"), scheduler: clock)
        {
            _ in
        }.start()
        defer { timer.cancel() }
        clock.advance(by: .seconds(2))
        // The machine sleeps 5 s: the continuous clock moves on, and the one coalesced tick stands for 5 slots.
        clock.suspend(for: .seconds(5))
        let dimensions = [("timer", "metrics-backup"), ("clock", "continuous")]
        #expect(try metrics.expectCounter("tempo_ticks", dimensions).totalValue == 3)
        #expect(try metrics.expectCounter("tempo_missed_ticks", dimensions).totalValue == 4)
        let lateness = try metrics.expectTimer("tempo_tick_lateness", dimensions)
        #expect(lateness.values == [0, 0, 4_000_000_000])
        #expect(try metrics.expectTimer("tempo_handler_duration", dimensions).values == [0, 0, 0])
    }

    @Test func anUnlabeledTimerIsOneSeriesNotOnePerTimer() throws {
        #expect(TimerMetricsNames.timer(nil) == "unlabeled")
        #expect(TimerMetricsNames.timer(TimerLabel("", fileID: "App/A.swift", line: 4)) == "App/A.swift:4")
        #expect(TimerMetricsNames.timer(TimerLabel("poll")) == "poll")
    }

    @Test func stallsAndPendingCountsAreRecorded() throws {
        let metrics = TestMetrics()
        let instrument = TimerMetrics(factory: metrics)
        instrument.stalled(
            TimerInstruments.StallEvent(
                label: TimerLabel("metrics-slow"), clock: .monotonic, lane: .driverThread,
                duration: .milliseconds(200), delayed: 99))
        instrument.pendingTimers(TimerInstruments.PendingEvent(clock: .wall, count: 12))
        let stalls = try metrics.expectCounter(
            "tempo_stalls", [("timer", "metrics-slow"), ("clock", "monotonic"), ("lane", "driver thread")])
        #expect(stalls.totalValue == 1)
        #expect(try metrics.expectGauge("tempo_pending_timers", [("clock", "wall")]).lastValue == 12)
    }

    @Test func prometheusRendersTheTimersSeriesAsAScraperReadsThem() throws {
        let registry = PrometheusCollectorRegistry()
        let registration = try TimerInstruments.add(TimerMetrics(factory: PrometheusMetricsFactory(registry: registry)))
        defer { TimerInstruments.remove(registration) }
        let clock = VirtualClock()
        let timer = try TempoTimer(.every(.seconds(1)).labeled("prometheus-poll"), scheduler: clock) { _ in }.start()
        defer { timer.cancel() }
        clock.advance(by: .seconds(3))
        let text = registry.emitToString()
        #expect(text.contains(#"tempo_ticks{timer="prometheus-poll",clock="monotonic"} 3"#), "\(text)")
        #expect(text.contains("# TYPE tempo_tick_lateness histogram"), "\(text)")
        #expect(text.contains(#"tempo_handler_duration_count{timer="prometheus-poll",clock="monotonic"} 3"#), "\(text)")
    }
}
