// Drift of 10,000 ticks at 1 ms: how far the last tick's actual time is from start + 10,000 × 1 ms.
//
//   cd Benchmarks/Drift && swift run -c release drift [--ticks N] [--slow-every K] [--work-us U]
//
// With --slow-every K the loop body busy-waits U µs (default 5,500) on every K-th tick: the same slow
// consumer for every contender. Each line reports the drift, how many bodies ran, how many stale ticks were
// handed over (received more than one interval after their grid slot: a backlog burst; not counted for the
// sleep loop, which has no grid) and, for Tempo, the ticks it reported missed.
import AsyncAlgorithms
import Tempo

struct Options {
    var ticks = 10_000
    var slowEvery = 0
    var work = Duration.microseconds(5_500)

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            let value = iterator.next().flatMap { Int($0) } ?? 0
            switch argument {
            case "--ticks": ticks = value
            case "--slow-every": slowEvery = value
            case "--work-us": work = .microseconds(value)
            default: fatalError("unknown option \(argument)")
            }
        }
    }
}

/// Records deliveries and runs the (possibly slow) body for each.
struct Consumer {
    let options: Options
    let clock = ContinuousClock()
    let start: ContinuousClock.Instant
    var bodies = 0
    /// For each tick of a grid: received - (start + index ms).
    var offsets: [Duration] = []

    /// Ticks received more than one interval after their slot, measuring slots from the least late tick, so
    /// that a stall before the loop's first `next()` does not count.
    var stale: Int {
        guard let base = offsets.min() else { return 0 }
        return offsets.filter { $0 - base > .milliseconds(1) }.count
    }

    init(options: Options) {
        self.options = options
        start = clock.now
    }

    /// Runs the body for grid tick `index` (due at start + index ms); `nil` for a loop that has no grid.
    mutating func body(index: Int?) -> ContinuousClock.Instant {
        let received = clock.now
        if let index { offsets.append(start.advanced(by: .milliseconds(index)).duration(to: received)) }
        bodies += 1
        if options.slowEvery > 0, bodies % options.slowEvery == 0 {
            let until = received.advanced(by: options.work)
            while clock.now < until {}
        }
        return received
    }
}

func report(
    _ name: String, start: ContinuousClock.Instant, last: ContinuousClock.Instant, options: Options,
    consumer: Consumer, extra: String = ""
) {
    let expected = start.advanced(by: .milliseconds(options.ticks))
    let drift = expected.duration(to: last)
    let microseconds = drift.components.seconds * 1_000_000 + drift.components.attoseconds / 1_000_000_000_000
    let milliseconds = "\(microseconds / 1_000).\(String(String(abs(microseconds % 1_000) + 1_000).dropFirst()))"
    let padded = name + String(repeating: " ", count: max(0, 30 - name.count))
    print("\(padded) drift \(milliseconds) ms  bodies \(consumer.bodies)  stale \(consumer.stale)\(extra)")
}

let options = Options(CommandLine.arguments)
let clock = ContinuousClock()
let interval = Duration.milliseconds(1)
print(
    "\(options.ticks) ticks at 1 ms; slow body: \(options.slowEvery == 0 ? "none" : "\(options.work) every \(options.slowEvery) ticks")"
)

do {
    var consumer = Consumer(options: options)
    let start = consumer.start
    var last = start
    for _ in 0..<options.ticks {
        try await Task.sleep(for: interval)
        last = consumer.body(index: nil)
    }
    report("Task.sleep loop", start: start, last: last, options: options, consumer: consumer)
}

do {
    var consumer = Consumer(options: options)
    let start = consumer.start
    var last = start
    for await _ in AsyncTimerSequence(interval: interval, clock: clock).prefix(options.ticks) {
        last = consumer.body(index: consumer.bodies + 1)
    }
    report("AsyncTimerSequence", start: start, last: last, options: options, consumer: consumer)
}

func tempo<C: Clock>(_ name: String, on tickClock: C) async throws where C.Duration == Duration {
    var consumer = Consumer(options: options)
    var missed = 0
    let start = consumer.start
    var last = start
    for await tick in try AsyncTickSequence(every: interval, repeats: .times(options.ticks), clock: tickClock) {
        last = consumer.body(index: tick.index)
        missed += tick.missed
    }
    report(name, start: start, last: last, options: options, consumer: consumer, extra: "  missed \(missed)")
}

try await tempo("Tempo AsyncTickSequence (Cont.)", on: ContinuousClock())
try await tempo("Tempo AsyncTickSequence (Tempo)", on: TempoClock.monotonic)
