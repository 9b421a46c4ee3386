import Synchronization
import Tempo

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
    private let samples = Mutex<[Double]>([])
    private let missed = Mutex(0)

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
