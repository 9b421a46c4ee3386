import Histogram
import Tempo
import TempoTools

/// Percentiles of one backend's lateness, from an HdrHistogram of nanoseconds (3 significant digits).
struct LatencyStats {
    let backend: LatencyProbe.Backend
    let ticks: Int
    let missed: Int
    let early: Int
    let histogram: Histogram<UInt64>
    let driftMicros: Double
    /// Process wakeups (context switches) per tick during the measurement.
    let wakeupsPerTick: Double
    /// Process CPU time per tick, in µs.
    let cpuMicrosPerTick: Double

    init(_ samples: LatencyProbe.Samples) {
        var histogram = Histogram<UInt64>(numberOfSignificantValueDigits: .three)
        for value in samples.latenessNanoseconds {
            _ = histogram.record(value)
        }
        self.backend = samples.backend
        self.ticks = samples.ticks
        self.missed = samples.missed
        self.early = samples.early
        self.histogram = histogram
        self.driftMicros = samples.drift.microseconds
        self.wakeupsPerTick = samples.wakeupsPerTick
        self.cpuMicrosPerTick = samples.cpuPerTick.microseconds
    }

    /// The lateness at `percentile` (0...100) in microseconds.
    func micros(atPercentile percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    var p50: Double { micros(atPercentile: 50) }
    var p90: Double { micros(atPercentile: 90) }
    var p99: Double { micros(atPercentile: 99) }
    var p999: Double { micros(atPercentile: 99.9) }
    var maxMicros: Double { Double(histogram.max) / 1000 }
    var minMicros: Double { Double(histogram.min) / 1000 }

    /// The fraction of ticks later than `micros`.
    func fractionLater(than micros: Double) -> Double {
        guard histogram.totalCount > 0 else { return 0 }
        let nanos = micros * 1000
        var later: UInt64 = 0
        for bucket in histogram.recordedValues() where Double(bucket.value) > nanos {
            later += bucket.count
        }
        return Double(later) / Double(histogram.totalCount)
    }
}

/// A whole `tempo latency` run: its settings and each backend's statistics, floor first.
struct LatencyReport {
    let period: Duration
    let duration: Duration
    let rounds: Int
    let stats: [LatencyStats]

    var floor: LatencyStats? { stats.first { $0.backend == .floor } }

    /// `value / floorValue`, or `nil` when there is no floor or it is zero.
    func ratio(_ value: Double, _ floorValue: Double?) -> Double? {
        guard let floorValue, floorValue > 0 else { return nil }
        return value / floorValue
    }
}
