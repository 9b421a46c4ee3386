import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Random operation sequences on a ``TimerRegistry`` on virtual time, checked against a model of which ticks
/// each timer owes. Handlers query the registry while their own (possibly last) tick is being delivered, the
/// pattern that lost ticks in issue #10. `TEMPO_SEED` replays a run.
@Suite struct RegistryModelTests {
    /// What the model knows of one scheduled timer.
    struct Planned {
        let key: String
        let clock: TimerClock
        let start: TimerInstant
        let interval: Duration
        let total: Int?
        /// The instant on `clock` when it was cancelled or replaced, if it was.
        var ended: TimerInstant?

        /// The ticks it owes when its clock reads `now`.
        func owed(now: TimerInstant) -> Int {
            let until = min(ended ?? now, now)
            guard until >= start + interval else { return 0 }
            let slots = Int((until - start).wholeMultiples(of: interval))
            return total.map { min($0, slots) } ?? slots
        }

        func isLive(now: TimerInstant) -> Bool {
            ended == nil && (total.map { owed(now: now) < $0 } ?? true)
        }
    }

    static let keys = ["a", "b", "c"]

    @Test func registryDeliversEveryOwedTickWhileHandlersQueryIt() throws {
        let baseSeed = SeededGenerator.seed()
        var seeds = SeededGenerator(seed: baseSeed)
        for sequence in 0..<300 {
            let seed = seeds.next()
            if let failure = try Self.runSequence(seed: seed) {
                Issue.record("seed \(baseSeed) (TEMPO_SEED), sequence \(sequence) (seed \(seed)): \(failure)")
                return
            }
        }
    }

    /// Runs one random sequence; returns a description of the first disagreement, or `nil`.
    static func runSequence(seed: UInt64) throws -> String? {
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let runs = TempoMutex<[Int: Int]>([:])
        let problems = TempoMutex<[String]>([])
        var planned: [Int: Planned] = [:]
        var current: [String: Int] = [:]
        var log: [String] = []
        func end(_ planned: inout [Int: Planned], _ id: Int) {
            guard let plan = planned[id] else { return }
            planned[id]!.ended = clock.now(plan.clock)
        }
        for id in 0..<random.int(5...40) {
            switch random.int(0...9) {
            case 0...3:
                let key = keys.randomElement(using: &random)!
                let timerClock: TimerClock = random.chance(50) ? .monotonic : .continuous
                let interval = Duration.milliseconds(random.int(1...5) * 100)
                let total: Int? = [1, 2, 3, nil].randomElement(using: &random)!
                let delivery: TimerDelivery = random.chance(50) ? .immediate : .privateQueue
                let policy: LateTickPolicy = .burst
                let repeats: TimerRepeats = total.map { $0 == 1 ? .once : .times($0) } ?? .forever
                let now = clock.now(timerClock)
                log.append("schedule(\(key), #\(id), \(interval), \(repeats), \(timerClock), \(delivery))")
                try registry.schedule(
                    key, .every(interval, repeats: repeats, latePolicy: policy, delivery: delivery, clock: timerClock)
                ) { tick in
                    // Inside its own handler, the entry is current: a query must not make it disappear.
                    if !registry.contains(key) {
                        problems.withLock { $0.append("#\(id) tick \(tick.index): contains(\(key)) is false") }
                    }
                    _ = registry.count
                    _ = registry.keys
                    runs.withLock { $0[id, default: 0] += 1 }
                }
                if let old = current[key] { end(&planned, old) }
                planned[id] = Planned(key: key, clock: timerClock, start: now, interval: interval, total: total)
                current[key] = id
            case 4:
                let key = keys.randomElement(using: &random)!
                log.append("cancel(\(key))")
                registry.cancel(key)
                if let old = current.removeValue(forKey: key) { end(&planned, old) }
            case 5:
                let step = Duration.milliseconds(random.int(0...30) * 50)
                log.append("suspend(\(step))")
                clock.suspend(for: step)
            default:
                let step = Duration.milliseconds(random.int(0...30) * 50)
                log.append("advance(\(step))")
                clock.advance(by: step)
            }
            // Check every timer's count and the registry's view of each key.
            let counts = runs.withLock { $0 }
            for (timerID, plan) in planned {
                let owed = plan.owed(now: clock.now(plan.clock))
                if counts[timerID, default: 0] != owed {
                    return "#\(timerID) ran \(counts[timerID, default: 0]) times, owed \(owed); \(log)"
                }
            }
            for key in keys {
                let live = current[key].map { planned[$0]!.isLive(now: clock.now(planned[$0]!.clock)) } ?? false
                if registry.contains(key) != live {
                    return "contains(\(key)) is \(!live), expected \(live); \(log)"
                }
            }
            if let problem = problems.withLock({ $0.first }) { return "\(problem); \(log)" }
        }
        registry.cancelAll()
        return nil
    }
}
