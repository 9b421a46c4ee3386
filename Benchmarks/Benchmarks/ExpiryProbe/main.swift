// Mass expiry (issue #44), outside package-benchmark: N default-delivery `TempoTimer`s due at one instant against N
// `DispatchSourceTimer`s on one serial queue, in the same process, the two subjects alternating round by round. The
// cost is (the clock reading of the last handler - the deadline) / N, as `Expiry/<Peer>/<N>` in WheelBenchmarks
// measures it; the table gives each subject's median over the rounds and the median of the rounds' ratios. Then it
// checks that each timer's handlers stay serial when many repeating timers fall due together: every handler marks its
// timer busy while it runs, and a handler that finds its timer busy is an overlap (there must be none).
//
//   cd Benchmarks && swift build -c release --product ExpiryProbe
//   .build/release/ExpiryProbe [ROUNDS] [COUNT ...]        # default: 5 rounds of 10000 and 100000
import Dispatch
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Synchronization
import Tempo

/// Tempo's monotonic clock in nanoseconds (each subject is timed on its own clock: Dispatch's uptime need not be the
/// same kernel clock).
func tempoNanoseconds() -> UInt64 {
    let (seconds, attoseconds) = SystemScheduler.shared.now(.monotonic).offset.components
    return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
}

func dispatchNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Counts handler runs and notes the clock when the last expected one ran.
final class Counter: Sendable {
    let fired = Atomic<Int>(0)
    let target: Int
    let last = Atomic<UInt64>(0)
    let done = DispatchSemaphore(value: 0)
    let clock: @Sendable () -> UInt64

    init(target: Int, clock: @escaping @Sendable () -> UInt64) {
        self.target = target
        self.clock = clock
    }

    func fire() {
        if fired.wrappingAdd(1, ordering: .relaxed).newValue == target {
            last.store(clock(), ordering: .relaxed)
            done.signal()
        }
    }
}

/// Arms `count` timers at one deadline far enough out for the arming to end first; returns ns per fired timer, or
/// `nil` when the arming still outlasted the lead (a loaded machine): that round is left out.
func tempoRound(_ count: Int) -> Double? {
    let counter = Counter(target: count, clock: tempoNanoseconds)
    let deadline = tempoNanoseconds() + UInt64(count) * 10_000 + 500_000_000
    let instant = TimerInstant(offset: .nanoseconds(Int64(deadline)))
    var timers: [TempoTimer] = []
    timers.reserveCapacity(count)
    for _ in 0..<count {
        timers.append(try! TempoTimer(.at(.monotonic(instant))) { _ in counter.fire() }.start())
    }
    let inTime = tempoNanoseconds() < deadline
    counter.done.wait()
    let cost = (Double(counter.last.load(ordering: .relaxed)) - Double(deadline)) / Double(count)
    for timer in timers { timer.cancel() }
    return inTime ? cost : nil
}

func dispatchRound(_ count: Int) -> Double? {
    let counter = Counter(target: count, clock: dispatchNanoseconds)
    let queue = DispatchQueue(label: "probe.dispatch")
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(count) * 40_000 + 500_000_000
    var sources: [any DispatchSourceTimer] = []
    sources.reserveCapacity(count)
    for _ in 0..<count {
        let source = DispatchSource.makeTimerSource(queue: queue)
        source.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .nanoseconds(0))
        source.setEventHandler { counter.fire() }
        source.resume()
        sources.append(source)
    }
    let inTime = DispatchTime.now().uptimeNanoseconds < deadline
    counter.done.wait()
    let cost = (Double(counter.last.load(ordering: .relaxed)) - Double(deadline)) / Double(count)
    for source in sources { source.cancel() }
    queue.sync {}
    return inTime ? cost : nil
}

/// `count` repeating timers of 5 ms, all due at the same instants, 4 ticks each; returns (ticks, overlaps).
func overlapRound(_ count: Int) -> (ticks: Int, overlaps: Int) {
    final class Busy: Sendable { let flag = Atomic<Bool>(false) }
    let ticks = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    let counter = Counter(target: count * 4, clock: tempoNanoseconds)
    let first = SystemScheduler.shared.now(.monotonic) + .milliseconds(200) + .microseconds(3) * count
    var timers: [TempoTimer] = []
    for _ in 0..<count {
        let busy = Busy()
        timers.append(
            try! TempoTimer(.every(.milliseconds(5), repeats: .times(4), first: .at(.monotonic(first)))) { _ in
                if busy.flag.exchange(true, ordering: .acquiringAndReleasing) { overlaps.add(1, ordering: .relaxed) }
                ticks.add(1, ordering: .relaxed)
                busy.flag.store(false, ordering: .releasing)
                counter.fire()
            }.start())
    }
    // Coalesced ticks (a loaded machine) do not count: wait at most 10 s for all of them.
    _ = counter.done.wait(timeout: .now() + 10)
    for timer in timers { timer.cancel() }
    return (ticks.load(ordering: .relaxed), overlaps.load(ordering: .relaxed))
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = arguments.first ?? 5
/// `EXPIRY_ONLY=tempo` runs Tempo's rounds alone (for a profile of its expiry).
let onlyTempo = getenv("EXPIRY_ONLY").map { String(cString: $0) } == "tempo"
let counts = arguments.count > 1 ? Array(arguments.dropFirst()) : [10_000, 100_000]
SystemScheduler.shared.startThreads(for: [.monotonic])
_ = tempoRound(1_000)
_ = dispatchRound(1_000)
print("ns per fired timer, N timers due at one instant; \(rounds) rounds, subjects alternating")
print("      N  TempoTimer (median, range)   DispatchSource (median, range)   ratio (median of rounds, range)")
func show(_ values: [Double]) -> String {
    "\(Int(median(values).rounded())) (\(Int(values.min()!.rounded()))-\(Int(values.max()!.rounded())))"
}
for count in counts {
    if onlyTempo {
        let tempo = (0..<rounds).compactMap { _ in tempoRound(count) }
        if !tempo.isEmpty { print("\(count)".leftPad(7) + "  " + show(tempo) + "  (Dispatch not run)") }
        continue
    }
    var tempo: [Double] = []
    var dispatch: [Double] = []
    var ratios: [Double] = []
    for round in 0..<rounds {
        let t: Double?
        let d: Double?
        if round % 2 == 0 {
            t = tempoRound(count)
            d = dispatchRound(count)
        } else {
            d = dispatchRound(count)
            t = tempoRound(count)
        }
        guard let t, let d else {
            print("round \(round + 1) at \(count) left out: arming outlasted the lead")
            continue
        }
        tempo.append(t)
        dispatch.append(d)
        ratios.append(t / d)
    }
    guard !ratios.isEmpty else { continue }
    let ratioText =
        "\((median(ratios) * 100).rounded() / 100)x (\((ratios.min()! * 100).rounded() / 100)-\((ratios.max()! * 100).rounded() / 100))"
    print("\(count)".leftPad(7) + "  " + show(tempo).rightPad(27) + "  " + show(dispatch).rightPad(31) + "  " + ratioText)
}
let overlap = overlapRound(10_000)
print("10000 repeating timers due together, 4 ticks each: \(overlap.ticks) handler runs, \(overlap.overlaps) overlapping")

extension String {
    func leftPad(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func rightPad(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
