// A second, independent check of `tempo bench`'s arm + cancel row (issue #44), outside TempoTools: its own loops on
// the main thread (not a task on the cooperative pool), its own clock reads, the subjects alternating round by round,
// and the cost of a timer taken apart: created and released without starting it, against an object of about the same
// size (the allocator and first-touch floor). `swift run -c release ArmProbe [COUNT [ROUNDS]]` from the Benchmarks
// folder (default 100000 and 9). Prints each subject's median arm and cancel ns per timer and the median of the rounds'
// ratios to Dispatch.
import Dispatch
import Synchronization
import Tempo

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class Fired: Sendable {
    let count = Atomic<Int>(0)
}

/// 25 words after the 16-byte object header: 216 bytes, about a `TempoTimer`'s object (244 bytes per armed timer with
/// its queue slot): what allocating, first touching and freeing that much costs, without any timer work.
final class SameSize {
    var words:
        (
            Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int,
            Int, Int, Int, Int
        ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let count = arguments.first ?? 100_000
let rounds = arguments.dropFirst().first ?? 9
let fired = Fired()
let queue = DispatchQueue(label: "arm-probe.dispatch")

func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Arms `count` timers with `arm`, then ends them with `end` and releases them; ns per timer of each phase.
func measure<Token>(arm: () -> Token, end: ([Token]) -> Void) -> (arm: Double, cancel: Double) {
    var tokens: [Token] = []
    tokens.reserveCapacity(count)
    let start = uptime()
    for _ in 0..<count { tokens.append(arm()) }
    let armed = uptime()
    end(tokens)
    tokens.removeAll()
    let ended = uptime()
    return (Double(armed - start) / Double(count), Double(ended - armed) / Double(count))
}

let subjects: [(name: String, run: () -> (arm: Double, cancel: Double))] = [
    (
        "dispatch-source",
        {
            measure(
                arm: { () -> any DispatchSourceTimer in
                    let source = DispatchSource.makeTimerSource(queue: queue)
                    source.schedule(deadline: .now() + .seconds(3_600), leeway: .nanoseconds(0))
                    source.setEventHandler { [fired] in fired.count.add(1, ordering: .relaxed) }
                    source.resume()
                    return source
                },
                end: { sources in
                    for source in sources { source.cancel() }
                    queue.sync {}  // cancellation completes on the queue
                })
        }
    ),
    (
        "tempo-timer",
        {
            measure(
                arm: {
                    try! TempoTimer(.after(.seconds(3_600))) { [fired] _ in fired.count.add(1, ordering: .relaxed) }
                        .start()
                },
                end: { timers in for timer in timers { timer.cancel() } })
        }
    ),
    (
        "created only",
        {
            measure(
                arm: {
                    try! TempoTimer(.after(.seconds(3_600))) { [fired] _ in fired.count.add(1, ordering: .relaxed) }
                },
                end: { _ in })
        }
    ),
    ("216-byte object", { measure(arm: { SameSize() }, end: { _ in }) }),
]

/// `ARM_ONLY=tempo` runs the `tempo-timer` subject alone and prints nothing (for a profile of its arm and cancel).
if getenv("ARM_ONLY").map({ String(cString: $0) }) == "tempo" {
    for _ in 0..<rounds { _ = subjects[1].run() }
    exit(0)
}

var results = [[(arm: Double, cancel: Double)]](repeating: [], count: subjects.count)
for round in 0..<rounds {
    let order = round.isMultiple(of: 2) ? Array(subjects.indices) : subjects.indices.reversed()
    for index in order { results[index].append(subjects[index].run()) }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func format(_ value: Double, _ digits: Int = 0) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return digits == 0 ? String(Int(rounded)) : String(rounded)
}

print("arm-probe: \(count) timers due in 1 h, \(rounds) rounds, order reversed every other round; medians")
print("subject          arm ns  cancel ns  arm+cancel ×dispatch (range)")
let dispatchTotals = results[0].map { $0.arm + $0.cancel }
for (index, subject) in subjects.enumerated() {
    let runs = results[index]
    let ratios = zip(runs, dispatchTotals).map { ($0.arm + $0.cancel) / $1 }.sorted()
    let name = subject.name + String(repeating: " ", count: max(0, 16 - subject.name.count))
    print(
        name, format(median(runs.map(\.arm))), " ", format(median(runs.map(\.cancel))), "      ",
        format(median(ratios), 3), "(\(format(ratios.first!, 3))–\(format(ratios.last!, 3)))")
}
