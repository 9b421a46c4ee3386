// Mass expiry (issue #44), outside package-benchmark: N default-delivery `TempoTimer`s due at one instant against N
// `DispatchSourceTimer`s on one serial queue, in the same process, the two subjects alternating round by round. The
// cost is (the clock reading of the last handler - the deadline) / N, as `Expiry/<Peer>/<N>` in WheelBenchmarks
// measures it, and beside it the process's CPU time over the same span (every thread's, from `getrusage`: a subject
// that spreads the work over more threads shows it there); the table gives each subject's medians over the rounds and
// the median of the rounds' ratios. Before each round the process waits to be quiet (a subject's clean-up after its
// round, such as Dispatch releasing cancelled sources on its own threads, must not run into the next). Then it
// checks that each timer's handlers stay serial when many repeating timers fall due together: every handler marks its
// timer busy while it runs, and a handler that finds its timer busy is an overlap (there must be none).
//
//   cd Benchmarks && swift build -c release --product ExpiryProbe
//   .build/release/ExpiryProbe [ROUNDS] [COUNT ...]        # default: 5 rounds of 10000 and 100000
import Dispatch
import Synchronization
import Tempo

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Tempo's monotonic clock in nanoseconds (each subject is timed on its own clock: Dispatch's uptime need not be the
/// same kernel clock).
func tempoNanoseconds() -> UInt64 {
    let (seconds, attoseconds) = SystemScheduler.shared.now(.monotonic).offset.components
    return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
}

func cpuNanoseconds() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000_000
        + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000
}

func dispatchNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// One round's cost per fired timer: wall-clock nanoseconds from the deadline to the last handler, and the process's
/// CPU nanoseconds (every thread's, user and system) spent over that span; and the microseconds from the deadline to
/// the first handler (how late the expiry starts: a wake's latency, not a per-timer cost).
struct Round {
    let wall: Double
    let cpu: Double
    let first: Double
}

/// Counts handler runs and notes the clock when the last expected one ran.
final class Counter: Sendable {
    let fired = Atomic<Int>(0)
    let target: Int
    let first = Atomic<UInt64>(0)
    let last = Atomic<UInt64>(0)
    let done = DispatchSemaphore(value: 0)
    let clock: @Sendable () -> UInt64

    init(target: Int, clock: @escaping @Sendable () -> UInt64) {
        self.target = target
        self.clock = clock
    }

    func fire() {
        let fired = fired.wrappingAdd(1, ordering: .relaxed).newValue
        if fired == 1 { first.store(clock(), ordering: .relaxed) }
        if fired == target {
            last.store(clock(), ordering: .relaxed)
            done.signal()
        }
    }

    /// Microseconds from `deadline` to the first handler.
    func firstLatency(after deadline: UInt64) -> Double {
        (Double(first.load(ordering: .relaxed)) - Double(deadline)) / 1_000
    }
}

/// Arms `count` timers at one deadline far enough out for the arming to end first; returns ns per fired timer, or
/// `nil` when the arming still outlasted the lead (a loaded machine): that round is left out.
func tempoRound(_ count: Int) -> Round? {
    let counter = Counter(target: count, clock: tempoNanoseconds)
    let deadline = tempoNanoseconds() + UInt64(count) * 10_000 + 500_000_000
    let instant = TimerInstant(offset: .nanoseconds(Int64(deadline)))
    var timers: [TempoTimer] = []
    timers.reserveCapacity(count)
    for _ in 0..<count {
        timers.append(try! TempoTimer(.at(.monotonic(instant))) { _ in counter.fire() }.start())
    }
    let inTime = tempoNanoseconds() < deadline
    let cpu0 = cpuNanoseconds()
    counter.done.wait()
    let cpu1 = cpuNanoseconds()
    let cost = (Double(counter.last.load(ordering: .relaxed)) - Double(deadline)) / Double(count)
    for timer in timers { timer.cancel() }
    let cpu = Double(cpu1 - cpu0) / Double(count)
    return inTime ? Round(wall: cost, cpu: cpu, first: counter.firstLatency(after: deadline)) : nil
}

func dispatchRound(_ count: Int) -> Round? {
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
    let cpu0 = cpuNanoseconds()
    counter.done.wait()
    let cpu1 = cpuNanoseconds()
    let cost = (Double(counter.last.load(ordering: .relaxed)) - Double(deadline)) / Double(count)
    for source in sources { source.cancel() }
    queue.sync {}
    let cpu = Double(cpu1 - cpu0) / Double(count)
    return inTime ? Round(wall: cost, cpu: cpu, first: counter.firstLatency(after: deadline)) : nil
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

/// Waits until the process is quiet (under 1 ms of CPU in 20 ms, at most 3 s): a subject's clean-up after its round
/// (Dispatch releases its cancelled sources on its own threads after `cancel()` returns) must not run into the next
/// round of the other subject.
func settle() {
    var previous = cpuNanoseconds()
    for _ in 0..<150 {
        usleep(20_000)
        let current = cpuNanoseconds()
        if current - previous < 1_000_000 { return }
        previous = current
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = arguments.first ?? 5
/// `EXPIRY_ONLY=tempo` runs Tempo's rounds alone (for a profile of its expiry).
let onlyTempo = getenv("EXPIRY_ONLY").map { String(cString: $0) } == "tempo"
let counts = arguments.count > 1 ? Array(arguments.dropFirst()) : [10_000, 100_000]
SystemScheduler.shared.startThreads(for: [.monotonic])
_ = tempoRound(1_000)
_ = dispatchRound(1_000)
print(
    "ns per fired timer, N timers due at one instant; \(rounds) rounds, subjects alternating, the process quiet before each"
)
print("wall: deadline to last handler; CPU: the whole process's CPU time over that span (all threads); medians (range)")
print(
    "      N  TempoTimer wall    CPU               DispatchSource wall  CPU               wall ratio (range)  CPU ratio"
)
func show(_ values: [Double]) -> String {
    "\(Int(median(values).rounded())) (\(Int(values.min()!.rounded()))-\(Int(values.max()!.rounded())))"
}
func ratio(_ values: [Double]) -> String {
    "\((median(values) * 100).rounded() / 100)x (\((values.min()! * 100).rounded() / 100)-\((values.max()! * 100).rounded() / 100))"
}
for count in counts {
    if onlyTempo {
        let tempo = (0..<rounds).compactMap { _ in
            settle()
            return tempoRound(count)
        }
        if !tempo.isEmpty {
            print(
                "\(count)".leftPad(7) + "  " + show(tempo.map(\.wall)).rightPad(17)
                    + show(tempo.map(\.cpu)).rightPad(18)
                    + "(Dispatch not run)")
        }
        continue
    }
    var tempo: [Round] = []
    var dispatch: [Round] = []
    for round in 0..<rounds {
        let t: Round?
        let d: Round?
        settle()
        if round % 2 == 0 {
            t = tempoRound(count)
            settle()
            d = dispatchRound(count)
        } else {
            d = dispatchRound(count)
            settle()
            t = tempoRound(count)
        }
        guard let t, let d else {
            print("round \(round + 1) at \(count) left out: arming outlasted the lead")
            continue
        }
        tempo.append(t)
        dispatch.append(d)
    }
    guard !tempo.isEmpty else { continue }
    let wallRatios = zip(tempo, dispatch).map { $0.wall / $1.wall }
    let cpuRatios = zip(tempo, dispatch).map { $0.cpu / $1.cpu }
    print(
        "\(count)".leftPad(7) + "  " + show(tempo.map(\.wall)).rightPad(17) + show(tempo.map(\.cpu)).rightPad(18)
            + show(dispatch.map(\.wall)).rightPad(21) + show(dispatch.map(\.cpu)).rightPad(18)
            + ratio(wallRatios).rightPad(20) + "\((median(cpuRatios) * 100).rounded() / 100)x")
    print(
        "".leftPad(7) + "  deadline to first handler, µs: TempoTimer " + show(tempo.map(\.first)) + ", DispatchSource "
            + show(dispatch.map(\.first)))
}
let overlap = overlapRound(10_000)
print(
    "10000 repeating timers due together, 4 ticks each: \(overlap.ticks) handler runs, \(overlap.overlaps) overlapping")

extension String {
    func leftPad(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func rightPad(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
