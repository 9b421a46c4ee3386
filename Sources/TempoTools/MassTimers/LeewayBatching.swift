import CTempoToolsShims
import Dispatch
import Synchronization
package import Tempo

/// How well timers with leeway share wakeups: `tempo bench --leeway L`.
///
/// `count` repeating timers of one `interval` are started with their first ticks spread evenly over one interval
/// (timer `i` first due `(i + 1) · interval / count` after the start), so without leeway each wants a wakeup of its
/// own. With leeway `L` a scheduler may run every tick due within `L` of the first in one wakeup: the ideal is
/// `interval / L` wakeups per interval. The measure is the process's voluntary context switches per second over
/// the run (a thread that waits for a timer and is woken counts one), with nothing else running in the process.
///
/// Thread-safety: run one measurement at a time.
package enum LeewayBatching {
    /// What is armed.
    package enum Subject: String, Sendable, CaseIterable {
        /// ``TempoTimer``s with the default delivery.
        case tempoTimer = "tempo-timer"
        /// ``TempoTimer``s with ``TimerDelivery/immediate`` delivery (handlers on the scheduler's thread).
        case tempoImmediate = "tempo-immediate"
        /// Repeating `DispatchSourceTimer`s with the same leeway, on one serial queue.
        case dispatchSource = "dispatch-source"
    }

    /// One measured subject.
    package struct Result: Sendable {
        /// What was measured.
        package let subject: Subject
        /// Voluntary context switches of the process per second.
        package let wakeupsPerSecond: Double
        /// Ticks delivered per second (`count / interval` when every tick ran).
        package let ticksPerSecond: Double
    }

    /// Runs `count` timers of `subject` for `duration` and counts the process's wakeups.
    ///
    /// - Parameters:
    ///   - subject: What to arm.
    ///   - count: How many timers, 1 to 100,000.
    ///   - interval: Their period; positive.
    ///   - leeway: Their leeway; zero or positive.
    ///   - duration: How long to count, after one interval of warm-up.
    /// - Returns: Wakeups and ticks per second.
    /// - Throws: ``TempoError`` with ``TempoError/Code/invalidCount`` naming a count out of range.
    package static func run(
        _ subject: Subject, count: Int, interval: Duration, leeway: Duration, duration: Duration
    ) throws(TempoError) -> Result {
        guard (1...100_000).contains(count) else {
            throw TempoError(.invalidCount, value: "\(count)", message: "count must be 1...100,000, got \(count)")
        }
        let ticks = TickCounter()
        let stop = arm(subject, count: count, interval: interval, leeway: leeway, counter: ticks)
        sleep(for: interval)
        let ticksBefore = ticks.value
        let switchesBefore = ctempo_voluntary_switches()
        let start = PlatformClock.now(.monotonic)
        sleep(for: duration)
        let seconds = Double((PlatformClock.now(.monotonic) - start).nanoseconds(rounded: .up)) / 1e9
        let switches = ctempo_voluntary_switches() - switchesBefore
        let delivered = ticks.value - ticksBefore
        stop()
        return Result(
            subject: subject, wakeupsPerSecond: Double(switches) / seconds,
            ticksPerSecond: Double(delivered) / seconds)
    }

    /// Blocks the calling thread for `duration` (one voluntary switch, counted in the baseline of a run).
    private static func sleep(for duration: Duration) {
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .nanoseconds(Int(duration.nanoseconds(rounded: .up))))
    }

    /// Starts the timers; returns what stops them.
    private static func arm(
        _ subject: Subject, count: Int, interval: Duration, leeway: Duration, counter: TickCounter
    ) -> () -> Void {
        let step = interval / count
        switch subject {
        case .tempoTimer, .tempoImmediate:
            let delivery: TimerDelivery = subject == .tempoImmediate ? .immediate : .privateQueue
            let timers = (0..<count).map { index in
                try! TempoTimer(
                    .every(interval, first: .after(step * (index + 1)), leeway: leeway, delivery: delivery)
                ) { _ in counter.add() }
            }
            for timer in timers { timer.start() }
            return {
                for timer in timers { timer.cancel() }
            }
        case .dispatchSource:
            let queue = DispatchQueue(label: "tempo.bench.leeway")
            let leewayNanoseconds = Int(leeway.nanoseconds(rounded: .up))
            let intervalNanoseconds = Int(interval.nanoseconds(rounded: .up))
            let sources = (0..<count).map { index in
                let source = DispatchSource.makeTimerSource(queue: queue)
                let firstNanoseconds = Int((step * (index + 1)).nanoseconds(rounded: .up))
                let first: DispatchTime = .now() + .nanoseconds(firstNanoseconds)
                source.schedule(
                    deadline: first, repeating: .nanoseconds(intervalNanoseconds),
                    leeway: .nanoseconds(leewayNanoseconds))
                source.setEventHandler { counter.add() }
                source.activate()
                return source
            }
            return {
                for source in sources { source.cancel() }
            }
        }
    }
}

/// Counts ticks from any thread.
private final class TickCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
