import Dispatch
import Synchronization
import Tempo

#if canImport(Glibc)
import Glibc
#endif

/// The stalls of one `tempo latency` run, seen through a `TimerInstrument` added for the run
/// (`--stall-threshold`): how many, the longest with its culprit, the culprits, and how many timers waited.
final class StallRecorder: TimerInstrument {
    let stallThreshold: Duration
    private let stalls = Mutex<[TimerInstruments.StallEvent]>([])
    /// Signalled when the stall of the `--block-once` timer was reported.
    private let blockReported = DispatchSemaphore(value: 0)

    init(threshold: Duration) {
        stallThreshold = threshold
    }

    func stalled(_ event: TimerInstruments.StallEvent) {
        stalls.withLock { $0.append(event) }
        if event.label?.name == blockingTimerName { blockReported.signal() }
    }

    /// Waits until the `--block-once` timer's stall was reported; `false` after `seconds` (a hang).
    func waitForBlock(seconds: Int) -> Bool {
        blockReported.wait(timeout: .now() + .seconds(seconds)) == .success
    }

    /// The stalls seen so far, in the order they ended.
    var events: [TimerInstruments.StallEvent] { stalls.withLock { $0 } }

    /// The report's text, for example:
    ///
    /// ```
    /// stalls of 50ms or longer: 1, through a TimerInstrument (--stall-threshold 50ms)
    ///   longest: latency-block (tempo/LatencyCommand.swift:9) held the monotonic driver thread for 0.2 seconds; 0 timers waited
    ///   culprits: latency-block (tempo/LatencyCommand.swift:9) 1x
    ///   delayed: 0 timers waited behind a stall, in all
    /// ```
    func report() -> String {
        let events = events
        let threshold = formatDuration(stallThreshold)
        var text = "\nstalls of \(threshold) or longer: \(events.count), through a TimerInstrument "
        text += "(--stall-threshold \(threshold))\n"
        guard let longest = events.max(by: { $0.duration < $1.duration }) else { return text }
        text += "  longest: \(longest)\n"
        var culprits: [String: Int] = [:]
        var order: [String] = []
        for event in events {
            let name = event.label.map { "\($0)" } ?? "unlabeled timers or actions"
            if culprits[name] == nil { order.append(name) }
            culprits[name, default: 0] += 1
        }
        text += "  culprits: " + order.map { "\($0) \(culprits[$0] ?? 0)x" }.joined(separator: ", ") + "\n"
        text += "  delayed: \(events.reduce(0) { $0 + $1.delayed }) timers waited behind a stall, in all\n"
        return text
    }
}

/// One `.immediate` timer on the monotonic driver thread whose handler blocks once (`--block-once`): a stall on
/// purpose, so that the stall report has a culprit to name.
func armBlockingTimer(blocking duration: Duration) throws -> TempoTimer {
    try TempoTimer(.after(.milliseconds(1), delivery: .immediate).labeled(blockingTimerName)) { _ in
        // Rounded up (never shorter than asked) and saturated, like every conversion of the package.
        let nanoseconds = duration.nanoseconds(rounded: .up)
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }.start()
}

/// The label of the `--block-once` timer.
let blockingTimerName = "latency-block"
