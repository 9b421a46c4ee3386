import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Records the values a ``TimingWheel`` hands its handler, with the virtual instant of each.
final class ValueLog: TimingWheelHandler {
    private let entries = TempoMutex<[(value: UInt64, at: TimerInstant)]>([])
    private let clock: (any TimerScheduler)?

    init(clock: (any TimerScheduler)? = nil) {
        self.clock = clock
    }

    var values: [UInt64] { entries.withLock { $0.map(\.value) } }
    var instants: [TimerInstant] { entries.withLock { $0.map(\.at) } }
    var count: Int { entries.withLock { $0.count } }

    func timerFired(value: UInt64) {
        let now = clock?.now(.monotonic) ?? .zero
        entries.withLock { $0.append((value, now)) }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}

/// A `VirtualClock` that counts the calls a scheduler client makes and the actions it runs.
final class CountingScheduler: DeliveringScheduler {
    let clock: VirtualClock
    private let counters = TempoMutex((schedules: 0, cancels: 0, executes: 0, runs: 0))

    init(clock: VirtualClock = VirtualClock()) {
        self.clock = clock
    }

    var schedules: Int { counters.withLock { $0.schedules } }
    var cancels: Int { counters.withLock { $0.cancels } }
    var executes: Int { counters.withLock { $0.executes } }
    /// Scheduled actions that ran: the driver's wakeups.
    var runs: Int { counters.withLock { $0.runs } }

    func now(_ clock: TimerClock) -> TimerInstant { self.clock.now(clock) }

    func schedule(
        at deadline: TimerInstant, leeway: Duration, clock: TimerClock, _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        counters.withLock { $0.schedules += 1 }
        return self.clock.schedule(at: deadline, leeway: leeway, clock: clock) { [self] in
            self.counters.withLock { $0.runs += 1 }
            action()
        }
    }

    func cancel(_ action: ScheduledAction) {
        counters.withLock { $0.cancels += 1 }
        clock.cancel(action)
    }

    func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        counters.withLock { $0.executes += 1 }
        clock.execute(on: queue, work)
    }
}

/// SplitMix64: a small, fast, seedable generator, so a failing randomized test can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed for a randomized test: `TEMPO_SEED` from the environment to replay, else a fresh one.
    static func seed() -> UInt64 {
        if let text = getenv("TEMPO_SEED").map({ String(cString: $0) }), let seed = UInt64(text) { return seed }
        return UInt64.random(in: 0...UInt64.max)
    }
}

extension TimingWheel.Configuration {
    /// A 1 ms wheel that runs callbacks on the driver thread: with `VirtualClock`, inside `advance`.
    static let immediate = TimingWheel.Configuration(resolution: .milliseconds(1), delivery: .immediate)
}
