import Dispatch
import Tempo

/// One step of a model-based test: a call on the timer or a movement of virtual time.
enum TimerOperation: CustomStringConvertible {
    case start
    case pause
    case resume
    case cancel
    case fire
    case reset(Duration?)
    case setLeeway(Duration)
    case addObserver
    case removeObserver(Int)
    case advance(Duration)
    case suspend(Duration)
    case adjustWallClock(Duration)

    var description: String {
        switch self {
        case .start: "start"
        case .pause: "pause"
        case .resume: "resume"
        case .cancel: "cancel"
        case .fire: "fire"
        case .reset(let interval): "reset(\(interval.map { "\($0)" } ?? "nil"))"
        case .setLeeway(let leeway): "setLeeway(\(leeway))"
        case .addObserver: "addObserver"
        case .removeObserver(let id): "removeObserver(h\(id))"
        case .advance(let duration): "advance(\(duration))"
        case .suspend(let duration): "suspend(\(duration))"
        case .adjustWallClock(let offset): "adjustWallClock(\(offset))"
        }
    }
}

/// Where a model-tested timer delivers; `immediate` keeps most sequences on the calling thread (fast), the
/// queues exercise the hop to another thread and back that `VirtualClock` waits for.
enum ModelDelivery: CaseIterable, CustomStringConvertible {
    case immediate
    case privateQueue
    case sharedQueue

    static let shared = DispatchQueue(label: "tempo.tests.model.shared")

    var delivery: TimerDelivery {
        switch self {
        case .immediate: .immediate
        case .privateQueue: .privateQueue
        case .sharedQueue: .queue(Self.shared)
        }
    }

    var description: String {
        switch self {
        case .immediate: "immediate"
        case .privateQueue: "privateQueue"
        case .sharedQueue: "sharedQueue"
        }
    }
}

/// Everything a model-based sequence starts from, printable so a failure can be read and replayed.
struct TimerSetup: CustomStringConvertible {
    var interval: Duration
    var repeats: TimerRepeats
    var first: FirstTick
    var leeway: Duration
    var latePolicy: LateTickPolicy
    var delivery: ModelDelivery
    var clock: TimerClock
    var monotonicStart: TimerInstant

    /// The setup itself: the model reads its fields.
    var configuration: TimerSetup { self }

    var description: String {
        "every \(interval), repeats \(repeats), first \(first), leeway \(leeway), \(latePolicy), "
            + "\(delivery), \(clock) clock, monotonic start \(monotonicStart)"
    }
}

extension SeededGenerator {
    /// A uniform integer in `range`.
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// `true` with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool {
        int(0...99) < percent
    }

    /// A duration of `0...limit`, in whole nanoseconds.
    mutating func duration(upTo limit: Duration) -> Duration {
        let nanoseconds = Int64(clamping: limit.attoseconds / 1_000_000_000)
        return .nanoseconds(Int64.random(in: 0...max(nanoseconds, 0), using: &self))
    }
}
