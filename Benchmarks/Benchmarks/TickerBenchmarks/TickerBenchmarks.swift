import Benchmark
import Synchronization
import Tempo
import TempoTesting

// Fan-out cost of SharedTicker: one tick delivered to N subscribers, against two peers measured in the same
// run (this machine's absolute timings are noisy):
// - ClosureArray.N: a plain array of N closures called in a loop (the floor for any fan-out);
// - TimerPerSubscriber.N: N TempoTimers, one per subscriber, all due at the same instant (what apps do
//   without a shared ticker).
// Every tick is driven by a VirtualClock with `.immediate` delivery, so a tick is `advance(by:)` on this
// thread and nothing waits on real time. The custom metric `psPerSubscriberTick` is the wall time of the
// measured ticks divided by (ticks × N), in picoseconds.

/// A counter the subscribers bump so the calls are not optimized away.
final class Sink: @unchecked Sendable {
    // Safe: every benchmark drives its clock on one thread with `.immediate` delivery, so all increments
    // happen on the benchmark's thread.
    var count = 0
}

let interval = Duration.milliseconds(10)
let subscriberCounts = [1, 1_000, 100_000]
let perSubscriberTick = BenchmarkMetric.custom(
    "psPerSubscriberTick", polarity: .prefersSmaller, useScalingFactor: false)

/// Ticks per measured iteration: enough work per iteration for a stable reading.
func ticksPerIteration(_ subscribers: Int) -> Int { max(10, 100_000 / subscribers) }

func record(_ benchmark: Benchmark, start: ContinuousClock.Instant, ticks: Int, subscribers: Int) {
    let elapsed = ContinuousClock.now - start
    let picoseconds = elapsed.attoseconds / 1_000_000 + Int128(elapsed.components.seconds) * 1_000_000_000_000
    benchmark.measurement(perSubscriberTick, Int(picoseconds / Int128(ticks * subscribers)))
}

/// A ticker with N subscribers, built once per benchmark process.
final class TickerFixture: Sendable {
    let clock: VirtualClock
    let ticker: SharedTicker
    let tokens: [TickerSubscription]

    init(subscribers: Int, sink: Sink) throws {
        let clock = VirtualClock()
        self.clock = clock
        let ticker = try SharedTicker(.every(interval, delivery: .immediate), scheduler: clock)
        self.ticker = ticker
        tokens = try (0..<subscribers).map { _ in try ticker.subscribe { _ in sink.count &+= 1 } }
    }
}

/// N independent timers on one virtual clock.
final class TimersFixture: Sendable {
    let clock: VirtualClock
    let timers: [TempoTimer]

    init(timers count: Int, sink: Sink) throws {
        let clock = VirtualClock()
        self.clock = clock
        timers = try (0..<count).map { _ in
            try TempoTimer(.every(interval, delivery: .immediate), scheduler: clock) { _ in sink.count &+= 1 }
        }
        for timer in timers { timer.start() }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, perSubscriberTick],
        warmupIterations: 2,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    for subscribers in subscriberCounts {
        let ticks = ticksPerIteration(subscribers)

        let tickerSink = Sink()
        let ticker = Mutex<TickerFixture?>(nil)
        Benchmark("SharedTicker.fanOut.\(subscribers)") { benchmark in
            let fixture = ticker.withLock { fixture in
                if fixture == nil { fixture = try? TickerFixture(subscribers: subscribers, sink: tickerSink) }
                return fixture!
            }
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            for _ in 0..<ticks { fixture.clock.advance(by: interval) }
            record(benchmark, start: start, ticks: ticks, subscribers: subscribers)
            benchmark.stopMeasurement()
            blackHole(tickerSink.count)
        }

        let closures: [@Sendable (TimerTick) -> Void] = (0..<subscribers).map { _ in
            { _ in tickerSink.count &+= 1 }
        }
        Benchmark("ClosureArray.\(subscribers)") { benchmark in
            let tick = TimerTick(index: 1, due: .zero, lateness: .zero)
            let start = ContinuousClock.now
            for _ in 0..<ticks {
                for closure in closures { closure(tick) }
            }
            record(benchmark, start: start, ticks: ticks, subscribers: subscribers)
            blackHole(tickerSink.count)
        }

        if subscribers == 1_000 { instrumentTickBenchmarks(timers: subscribers, ticks: max(10, ticks / 10)) }

        guard subscribers <= 1_000 else { continue }
        let timersSink = Sink()
        let timers = Mutex<TimersFixture?>(nil)
        Benchmark("TimerPerSubscriber.\(subscribers)") { benchmark in
            let fixture = timers.withLock { fixture in
                if fixture == nil { fixture = try? TimersFixture(timers: subscribers, sink: timersSink) }
                return fixture!
            }
            let timerTicks = max(10, ticks / 10)
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            for _ in 0..<timerTicks { fixture.clock.advance(by: interval) }
            record(benchmark, start: start, ticks: timerTicks, subscribers: subscribers)
            benchmark.stopMeasurement()
            blackHole(timersSink.count)
        }
    }
}

/// An instrument that does nothing (every method has an empty default): what the hook costs by itself.
struct NoOpInstrument: TimerInstrument {}

/// `InstrumentTick.None.N` and `InstrumentTick.NoOp.N` (issue #27): N timers ticked together on a virtual clock, as
/// `TimerPerSubscriber.N`, with no instrument and with a no-op instrument added (around the measured ticks only, so
/// that no other benchmark sees it). `psPerSubscriberTick` is the cost per tick; the ratio of the two rows is the
/// hook's. `InstrumentProbe` checks it with its own loops, and on `SystemScheduler` too.
func instrumentTickBenchmarks(timers count: Int, ticks: Int) {
    for instrumented in [false, true] {
        let sink = Sink()
        let fixture = Mutex<TimersFixture?>(nil)
        Benchmark("InstrumentTick.\(instrumented ? "NoOp" : "None").\(count)") { benchmark in
            let fixture = fixture.withLock { fixture in
                if fixture == nil { fixture = try? TimersFixture(timers: count, sink: sink) }
                return fixture!
            }
            let registration = instrumented ? try? TimerInstruments.add(NoOpInstrument()) : nil
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            for _ in 0..<ticks { fixture.clock.advance(by: interval) }
            record(benchmark, start: start, ticks: ticks, subscribers: count)
            benchmark.stopMeasurement()
            if let registration { TimerInstruments.remove(registration) }
            blackHole(sink.count)
        }
    }
}
