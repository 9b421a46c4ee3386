import Dispatch
import Tempo
import TempoTesting
import Testing

/// Two runs of the same operations on `VirtualClock` produce the same trace of handler runs and state changes,
/// with handlers on different queues: the clock waits for each delivery before it runs the next action, so
/// handlers run one at a time in deadline order (FIFO among equal deadlines) whatever queue they run on.
@Suite struct VirtualTimeDeterminismTests {
    static let queues = [
        DispatchQueue(label: "determinism.a"), DispatchQueue(label: "determinism.b"),
        DispatchQueue(label: "determinism.c", attributes: .concurrent),
    ]

    /// Runs `count` random operations from `seed` on a new clock and returns the trace.
    static func trace(seed: UInt64, operations count: Int) throws -> [String] {
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let log = EventLog()
        var timers: [TempoTimer] = []
        let registry = TimerRegistry<Int>(scheduler: clock)
        let debouncer = try Debouncer<Int>(delay: .milliseconds(300), scheduler: clock) { value in
            log.record("debounced \(value) at \(clock.now(.monotonic))")
        }
        for step in 0..<count {
            switch random.next() % 10 {
            case 0, 1:
                let name = "t\(step)"
                let interval = Duration.milliseconds(Int64(1 + random.next() % 500))
                let delivery: TimerDelivery =
                    switch random.next() % 4 {
                    case 3: .immediate
                    case let index: .queue(queues[Int(index)])
                    }
                let repeats: TimerRepeats = random.next() % 8 == 0 ? .forever : .times(Int(1 + random.next() % 5))
                if timers.count >= 16 { timers.removeFirst().cancel() }
                let timer = try TempoTimer(.every(interval, repeats: repeats, delivery: delivery), scheduler: clock) {
                    [weak clock] tick in
                    log.record("\(name) tick \(tick.index) at \(clock?.now(.monotonic) ?? .zero)")
                }
                timer.onStateChange { state in log.record("\(name) \(state)") }
                timer.start()
                timers.append(timer)
            case 2 where !timers.isEmpty:
                timers.remove(at: Int(random.next() % UInt64(timers.count))).cancel()
            case 3 where !timers.isEmpty:
                let timer = timers[Int(random.next() % UInt64(timers.count))]
                if timer.state == .paused { timer.resume() } else { timer.pause() }
            case 4:
                let key = Int(random.next() % 8)
                try registry.schedule(key, .after(.milliseconds(Int64(1 + random.next() % 1000)))) { _ in
                    log.record("registry \(key)")
                }
            case 5:
                debouncer.call(step)
            default:
                clock.advance(by: .milliseconds(Int64(random.next() % 200)))
            }
        }
        clock.advance(by: .seconds(2))
        for timer in timers { timer.cancel() }
        registry.cancelAll()
        return log.all
    }

    @Test func aSeededStressOfTenThousandOperationsGivesTheSameTraceTwice() throws {
        let seed = SeededGenerator.seed()
        let first = try Self.trace(seed: seed, operations: 10_000)
        let second = try Self.trace(seed: seed, operations: 10_000)
        print("VirtualTimeDeterminismTests: seed \(seed) (TEMPO_SEED), \(first.count) events")
        #expect(first.count > 1000, "seed \(seed) (TEMPO_SEED): only \(first.count) events")
        let divergence = zip(first, second).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(
            first == second,
            "seed \(seed) (TEMPO_SEED): traces diverge at event \(divergence ?? min(first.count, second.count))")
    }

    @Test func twoAutoAdvancingRunsOfTheSameAsyncCodeRunHandlersInTheSameOrder() async throws {
        func run() async throws -> [String] {
            let clock = VirtualClock()
            let log = EventLog()
            try await clock.run {
                let timers = try (0..<3).map { index in
                    try TempoTimer(
                        .every(
                            .milliseconds(100 * (index + 1)), repeats: .times(6), delivery: .queue(Self.queues[index])),
                        scheduler: clock
                    ) { tick in log.record("timer \(index) tick \(tick.index)") }.start()
                }
                for await tick in try clock.ticks(every: .milliseconds(250), repeats: .times(4)) {
                    log.record("sequence tick \(tick.index)")
                }
                try await clock.sleep(for: .seconds(2))
                withExtendedLifetime(timers) {}
            }
            return log.all
        }
        let first = try await run()
        let second = try await run()
        #expect(first.count == 6 * 3 + 4)
        #expect(first == second)
    }
}
