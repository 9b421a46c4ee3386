import ArgumentParser
import Dispatch
import Synchronization
import Tempo
import TempoLocks

#if canImport(Glibc)
// @preconcurrency: C's `stdout` is a global variable, which stdio locks on every call.
@preconcurrency import Glibc
#endif

extension Duration {
    /// The duration in microseconds, with sub-microsecond precision.
    var microseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }
}

func formatMicros(_ value: Double) -> String {
    let rounded = (value * 10).rounded() / 10
    return String(rounded)
}

/// Min, mean and max of lateness samples, safe to feed from a timer's queue.
final class LatenessStats: Sendable {
    private let samples = TempoMutex<[Double]>([])
    private let missed = TempoMutex(0)

    func add(_ micros: Double, missed: Int = 0) {
        samples.withLock { $0.append(micros) }
        self.missed.withLock { $0 += missed }
    }

    func summary(count: Int) -> String {
        let values = samples.withLock { $0 }.sorted()
        guard !values.isEmpty else { return "summary: no ticks" }
        let mean = values.reduce(0, +) / Double(values.count)
        let median = values[values.count / 2]
        let missed = self.missed.withLock { $0 }
        return
            "summary: \(values.count)/\(count) ticks delivered, \(missed) missed, lateness µs min \(formatMicros(values[0])) "
            + "median \(formatMicros(median)) mean \(formatMicros(mean)) max \(formatMicros(values[values.count - 1]))"
    }
}

/// A short human form of a duration that `tempo` parses back: `1ms`, `250ms`, `1.5s`, `100us`, `1ns`, `1h30m`,
/// `50000d`.
func formatDuration(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.saturatingComponents
    func trim(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
    if seconds >= 60 {
        // Days, hours, minutes and seconds, each when not zero: 72,000,000 minutes read `50000d`.
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60)] where rest >= size {
            text += "\(rest / size)\(unit)"
            rest %= size
        }
        if rest > 0 || attoseconds > 0 { text += trim(Double(rest) + Double(attoseconds) / 1e18) + "s" }
        return text
    }
    let nanos = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    if nanos >= 1e9 { return trim(nanos / 1e9) + "s" }
    if nanos >= 1e6 { return trim(nanos / 1e6) + "ms" }
    if nanos >= 1e3 { return trim(nanos / 1e3) + "us" }
    return trim(nanos) + "ns"
}

/// Prints a warning on standard error when `tempo` was built without optimization, whose timings are several times
/// worse than a release build's.
func warnIfUnoptimized(measuring command: String) {
    #if DEBUG
    printError(
        "warning: tempo was built without optimization (debug): timings read several times worse than a release "
            + "build's; measure with `swift run -c release tempo \(command)`")
    #endif
}

/// Ctrl-C (SIGINT) during a measurement: the first one asks the measurement to stop (``requested``), a second one
/// exits at once with status 130.
///
/// Thread-safe: the count is atomic; ``listen()`` installs a handler that runs on the signal watcher's thread.
final class Interrupt: Sendable {
    private let count = Atomic(0)

    /// Whether Ctrl-C was pressed.
    var requested: Bool { count.load(ordering: .relaxed) > 0 }

    /// Catches SIGINT and counts each one instead of ending the process; cancel the returned watcher to stop
    /// counting. `nil` when the signal cannot be caught (then Ctrl-C ends the process at once, as by default).
    func listen() -> SignalWatcher? {
        SignalWatcher.watch([SIGINT]) { [self] _ in
            if count.add(1, ordering: .relaxed).newValue > 1 { _exit(128 + SIGINT) }
        }
    }
}

/// The exit status for standard output that cannot be written (`EX_IOERR` in sysexits.h).
let exitIOError: Int32 = 74

/// Writes `text` to standard output and flushes it; on a write error (a full disk, `> /dev/full`, a closed
/// descriptor) reports it on standard error and exits with status 74 at once.
///
/// Thread-safe: stdio locks the stream, and a failing write ends the process.
func output(_ text: String, terminator: String = "\n") {
    errno = 0
    if fputs(text + terminator, stdout) < 0 || ferror(stdout) != 0 { outputFailed(errno) }
    requireOutputWritten()
}

/// Exits with status 74 and a message when standard output has failed or cannot be flushed.
func requireOutputWritten() {
    errno = 0
    if fflush(stdout) != 0 || ferror(stdout) != 0 { outputFailed(errno) }
}

private func outputFailed(_ code: Int32) -> Never {
    let reason = code == 0 ? "write error" : String(cString: strerror(code))
    printError("Error: cannot write to standard output: \(reason)")
    _exit(exitIOError)
}

/// Reports a usage error found while running (after ArgumentParser's validation) and returns exit status 64.
func usageError(_ message: String) -> ExitCode {
    printError("Error: \(message)")
    return ExitCode.validationFailure
}
