// The per-tick cost of Tempo's instrument hook (issue #27), outside package-benchmark: its own loops and clock reads,
// with no instrument and with a no-op instrument added, alternating in one run, each reported as a ratio.
// `swift run -c release InstrumentProbe` from the Benchmarks folder.
//
// 1. SystemScheduler: 1,000 repeating timers every 1 ms with `.immediate` delivery on the shared scheduler's driver
//    thread; the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) over 200,000 delivered ticks, per tick. Real ticks,
//    the real tick path; CPU time rather than wall time, since the timers wait for their deadlines.
// 2. VirtualClock: 1,000 repeating timers every 10 ms with `.immediate` delivery, ticked by `advance(by:)` on this
//    thread, 100 steps (100,000 ticks); wall time per tick. The same harness as TickerBenchmarks' `InstrumentTick`.
import Synchronization
import Tempo
import TempoTesting

#if canImport(Glibc)
import Glibc
#endif

/// An instrument that does nothing: what the hook costs by itself (every method has an empty default).
struct NoOpInstrument: TimerInstrument {}

final class Counter: Sendable {
    let ticks = Atomic<Int>(0)
}

func cpuNanoseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1e9 + Double(now.tv_nsec)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func format(_ value: Double) -> String { String(Double(Int((value * 10).rounded())) / 10) }

/// Runs `measure` `rounds` times in each mode, alternating which goes first, and prints the medians and the ratio.
func compare(_ name: String, rounds: Int, unit: String, _ measure: () -> Double) {
    var plain: [Double] = []
    var instrumented: [Double] = []
    for round in 0..<rounds {
        for instrumentedFirst in [round % 2 == 1, round % 2 == 0] {
            if instrumentedFirst {
                let registration = try! TimerInstruments.add(NoOpInstrument())
                instrumented.append(measure())
                TimerInstruments.remove(registration)
            } else {
                plain.append(measure())
            }
        }
    }
    let none = median(plain)
    let noOp = median(instrumented)
    print(
        "\(name): \(format(none)) \(unit) per tick without an instrument, \(format(noOp)) with a no-op instrument, "
            + "ratio \(String(format: noOp / none)) (medians of \(rounds) rounds each; all rounds without: "
            + "\(plain.map(format)), with: \(instrumented.map(format)))")
}

func String(format ratio: Double) -> String { String(Double(Int((ratio * 100).rounded())) / 100) + "×" }

// 1. SystemScheduler, CPU time per real tick.
do {
    let counter = Counter()
    let timers = (0..<1_000).map { _ in
        try! TempoTimer(.every(.milliseconds(1), delivery: .immediate)) { _ in
            counter.ticks.add(1, ordering: .relaxed)
        }.start()
    }
    func waitFor(_ target: Int) {
        while counter.ticks.load(ordering: .relaxed) < target { usleep(2_000) }
    }
    waitFor(20_000)  // warm: the scheduler's tables and the driver threads
    compare("SystemScheduler, 1,000 timers every 1 ms, .immediate", rounds: 7, unit: "ns of process CPU") {
        let start = counter.ticks.load(ordering: .relaxed)
        let cpu = cpuNanoseconds()
        waitFor(start + 200_000)
        let ticks = counter.ticks.load(ordering: .relaxed) - start
        return (cpuNanoseconds() - cpu) / Double(ticks)
    }
    for timer in timers { timer.cancel() }
}

// 2. VirtualClock, wall time per tick on one thread.
do {
    let clock = VirtualClock()
    let counter = Counter()
    let timers = (0..<1_000).map { _ in
        try! TempoTimer(.every(.milliseconds(10), delivery: .immediate), scheduler: clock) { _ in
            counter.ticks.add(1, ordering: .relaxed)
        }.start()
    }
    for _ in 0..<20 { clock.advance(by: .milliseconds(10)) }  // warm
    compare("VirtualClock, 1,000 timers, advance(by:) on one thread", rounds: 15, unit: "ns of wall time") {
        let start = counter.ticks.load(ordering: .relaxed)
        let began = ContinuousClock.now
        for _ in 0..<100 { clock.advance(by: .milliseconds(10)) }
        let elapsed = ContinuousClock.now - began
        let ticks = counter.ticks.load(ordering: .relaxed) - start
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9)
            / Double(ticks)
    }
    for timer in timers { timer.cancel() }
}
