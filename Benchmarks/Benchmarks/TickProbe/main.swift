// Instructions of a repeating timer's tick (issue #44's CPU-per-tick row), counted a second way beside `tempo
// latency`'s CPU column: run under valgrind's callgrind by `Scripts/tick-instructions.sh`, which subtracts a short run
// from a long one. Two subjects, as in `tempo latency`: `tempo` is a repeating `TempoTimer` with the default delivery
// whose handler reads the clock; `floor` is a thread sleeping with clock_nanosleep(TIMER_ABSTIME) to the same grid and
// reading the clock. A count of instructions does not depend on the machine's load; it does not count the kernel's
// work (the wakeup, the timer system calls), which `tempo latency` and `perf stat` do.
//
// `TickProbe SUBJECT TICKS` (SUBJECT: tempo or floor), from the Benchmarks folder after
// `swift build -c release --product TickProbe`.
import Dispatch
import Synchronization
import Tempo

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class Ticks: Sendable {
    let count = Atomic<Int>(0)
    let last = Atomic<Int>(0)
    let calls = Atomic<Int>(0)
}

func readClock() -> Int {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return spec.tv_sec &* 1_000_000_000 &+ spec.tv_nsec
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let ticks = Int(arguments[1]), ticks > 0, ["tempo", "floor"].contains(arguments[0]) else {
    print("usage: TickProbe tempo|floor TICKS")
    exit(64)
}
// ns: long enough that no tick is late under valgrind, which runs the code about 50 times slower (a late tick folds the
// slots it missed into one handler call, a different path: the output counts the calls).
let period = 10_000_000
let done = DispatchSemaphore(value: 0)
let counted = Ticks()

if arguments[0] == "tempo" {
    let timer = try TempoTimer(.every(.nanoseconds(period), repeats: .times(ticks))) { [counted] tick in
        counted.last.store(readClock(), ordering: .relaxed)
        counted.calls.add(1, ordering: .relaxed)
        // A late tick folds the slots it missed in (the default late-tick policy): they count toward the repeats.
        if counted.count.add(1 + tick.missed, ordering: .relaxed).newValue >= ticks { done.signal() }
    }
    timer.start()
    done.wait()
    timer.cancel()
} else {
    // On the main thread: the subject is the sleep and the clock read, not a thread's start.
    var next = readClock()
    for _ in 0..<ticks {
        next += period
        var spec = timespec(tv_sec: next / 1_000_000_000, tv_nsec: next % 1_000_000_000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
        counted.last.store(readClock(), ordering: .relaxed)
        counted.count.add(1, ordering: .relaxed)
        counted.calls.add(1, ordering: .relaxed)
    }
}
print(
    arguments[0], counted.count.load(ordering: .relaxed), "ticks,", counted.calls.load(ordering: .relaxed),
    "handler calls")
