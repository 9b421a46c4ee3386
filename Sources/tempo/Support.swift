import Synchronization
import Tempo
import TempoLocks

extension Duration {
    /// The duration in microseconds, with sub-microsecond precision.
    var microseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}

func formatMicros(_ value: Double) -> String {
    let rounded = (value * 10).rounded() / 10
    return String(rounded)
}

/// Min, mean and max of lateness samples, safe to feed from a timer's queue.
final class LatenessStats: Sendable {
    private let samples = TempoMutex<[Double]>([])
    private let missed = TempoMutex(0)

    func add(_ micros: Double, missed: Int = 0) {
        samples.withLock { $0.append(micros) }
        self.missed.withLock { $0 += missed }
    }

    func summary(count: Int) -> String {
        let values = samples.withLock { $0 }.sorted()
        guard !values.isEmpty else { return "summary: no ticks" }
        let mean = values.reduce(0, +) / Double(values.count)
        let median = values[values.count / 2]
        let missed = self.missed.withLock { $0 }
        return
            "summary: \(values.count)/\(count) ticks delivered, \(missed) missed, lateness µs min \(formatMicros(values[0])) "
            + "median \(formatMicros(median)) mean \(formatMicros(mean)) max \(formatMicros(values[values.count - 1]))"
    }
}

/// A short human form of a duration: `1ms`, `250ms`, `1.5s`, `100us`.
func formatDuration(_ duration: Duration) -> String {
    let nanos = Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    func trim(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
    if nanos >= 60e9 && nanos.truncatingRemainder(dividingBy: 60e9) == 0 { return trim(nanos / 60e9) + "m" }
    if nanos >= 1e9 { return trim(nanos / 1e9) + "s" }
    if nanos >= 1e6 { return trim(nanos / 1e6) + "ms" }
    if nanos >= 1e3 { return trim(nanos / 1e3) + "us" }
    return trim(nanos) + "ns"
}
