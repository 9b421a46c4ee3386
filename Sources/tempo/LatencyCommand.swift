import ArgumentParser
import Tempo
import TempoTools

#if canImport(Glibc)
import Glibc
#endif

/// `tempo latency`: how late each timer backend wakes up, side by side, like `cyclictest`.
struct LatencyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latency",
        abstract: "Measure how late timers wake up: Tempo, Dispatch and a clock_nanosleep floor, side by side.",
        discussion: """
            Each backend ticks every PERIOD for DURATION in all, anchored at the start of each round. \
            Backends never run at the same time (on a small machine they would compete for the same \
            cores); they take turns in ROUNDS rounds, each starting with a different backend, so that a \
            change in the machine's load falls on all of them alike. For each it reports lateness percentiles in µs, the drift of the last tick from the \
            ideal grid, and p50/p99 as a ratio to the floor: a thread sleeping with \
            clock_nanosleep(TIMER_ABSTIME) and 1 ns timer slack. Ctrl-C (SIGINT) ends the measurement at the \
            end of the current slice (DURATION / ROUNDS of one backend), prints what was measured so far and \
            exits with 130; a second Ctrl-C exits at once. A build without optimization (debug) measures \
            several times worse and prints a warning: measure with `swift run -c release tempo latency`. \
            With --stall-threshold, a TimerInstrument watches every Tempo timer of the run and a stall report \
            follows the results (on standard error with --json or --csv): how many handlers or scheduled actions \
            held their thread for the threshold or longer, the longest with its culprit's label, the culprits, and \
            how many timers waited behind them. --block-once makes one on purpose, to see the report name a \
            culprit: a timer labeled latency-block blocks the monotonic driver thread once, at the start, which \
            disturbs the measurement it runs beside.
            """
    )

    @Option(name: .long, parsing: .unconditional, help: "The tick period, like 1ms or 500us (at least 10us).")
    var period: String = "1ms"

    @Option(name: .long, parsing: .unconditional, help: "How long to measure each backend, like 5s or 300ms.")
    var duration: String = "5s"

    @Option(
        name: .long, parsing: .unconditional,
        help: "How many turns the backends take (default: one per second of DURATION, 1 to 10).")
    var rounds: Int?

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help:
            "The backends to measure (default: all): \(LatencyProbe.Backend.allCases.map(\.rawValue).joined(separator: ", ")). The floor always runs."
    )
    var backends: [String] = []

    @Flag(name: .long, help: "Print the result as JSON instead of a table.")
    var json = false

    @Flag(name: .long, help: "Print the result as CSV instead of a table.")
    var csv = false

    @Option(
        name: .long,
        help: ArgumentHelp("Also write a plot of the latency distributions to this SVG file.", valueName: "file")
    )
    var svg: String?

    @Flag(name: .long, help: "Do not draw the progress line.")
    var noProgress = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Watch the run's Tempo timers and print a stall report of handlers or actions that held their thread "
                + "this long or longer, like 20ms.", valueName: "duration"))
    var stallThreshold: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Block the monotonic driver thread once for this long, at the start, from a timer labeled latency-block "
                + "(a stall on purpose, for the stall report; it disturbs the measurement). Needs --stall-threshold.",
            valueName: "duration"))
    var blockOnce: String?

    mutating func validate() throws {
        let period = try parseDuration(self.period, option: "--period")
        let duration = try parseDuration(self.duration, option: "--duration")
        let slots: Int
        do {
            slots = try LatencyProbe.slotCount(period: period, duration: duration)
        } catch {
            throw ValidationError(error.message)
        }
        _ = try selectedBackends()
        try validateCount(rounds, option: "--rounds")
        if let rounds, rounds > slots {
            throw ValidationError("--rounds \(rounds) is more than the \(slots) ticks of --duration \(self.duration)")
        }
        if json && csv { throw ValidationError("--json and --csv cannot be combined") }
        _ = try stallOptions()
    }

    /// The parsed `--stall-threshold` and `--block-once`, checked.
    func stallOptions() throws -> (threshold: Duration, block: Duration?)? {
        let threshold = try stallThreshold.map { try parseDuration($0, option: "--stall-threshold") }
        let block = try blockOnce.map { try parseDuration($0, option: "--block-once") }
        if let threshold, threshold <= .zero || threshold > TempoError.maximumDuration {
            throw ValidationError("--stall-threshold must be above 0s, got '\(stallThreshold ?? "")'")
        }
        if let block, block <= .zero || block > .seconds(60) {
            throw ValidationError("--block-once must be above 0s and at most 60s, got '\(blockOnce ?? "")'")
        }
        guard let threshold else {
            if blockOnce != nil { throw ValidationError("--block-once needs --stall-threshold") }
            return nil
        }
        return (threshold, block)
    }

    func selectedBackends() throws -> [LatencyProbe.Backend] {
        let names = backends.flatMap { $0.split(separator: ",").map(String.init) }
        guard !names.isEmpty else { return LatencyProbe.Backend.allCases }
        var selected: [LatencyProbe.Backend] = [.floor]
        for name in names {
            guard let backend = LatencyProbe.Backend(rawValue: name) else {
                let known = LatencyProbe.Backend.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--backends: unknown backend '\(name)' (use \(known))")
            }
            if !selected.contains(backend) { selected.append(backend) }
        }
        return selected
    }

    func run() throws {
        let period = try parseDuration(self.period, option: "--period")
        let duration = try parseDuration(self.duration, option: "--duration")
        let backends = try selectedBackends()
        // Before the run, not after it: a file that cannot be created fails at once (EX_CANTCREAT).
        let svgFile = try svg.map(openForWriting)
        warnIfUnoptimized(measuring: "latency")
        let progress = ProgressLine(enabled: !noProgress && isatty(2) != 0)
        let slots = try LatencyProbe.slotCount(period: period, duration: duration)
        let rounds = self.rounds ?? min(10, slots, max(1, Int(duration / .seconds(1))))
        let perSlice = slots / rounds
        if self.rounds != nil, perSlice < Self.fewestTicksPerSlice {
            printError(
                "warning: --rounds \(rounds) leaves \(perSlice) tick\(perSlice == 1 ? "" : "s") per backend and round: "
                    + "each round restarts the backends, so percentiles and ratios mostly measure their start; use at most "
                    + "\(max(1, slots / Self.fewestTicksPerSlice)) rounds or a longer --duration")
        }
        let stalls = try startStallReport()
        // Listening before the line that says so: a Ctrl-C after it always finds the handler.
        let interrupt = Interrupt()
        let listening = interrupt.listen()
        printError(
            "tempo latency: measuring \(backends.count) backends for \(formatDuration(duration)) each, in \(rounds) "
                + "round\(rounds == 1 ? "" : "s"); Ctrl-C stops and prints what was measured so far")
        let samples = try LatencyProbe.measure(
            backends, every: period, for: duration, rounds: rounds,
            progress: { done in
                let bar = String(repeating: "#", count: Int(done * 30)).padding(to: 30)
                progress.show("measuring \(backends.count) backends, \(rounds) rounds [\(bar)] \(Int(done * 100))%")
            },
            shouldStop: { interrupt.requested })
        listening?.cancel()
        let stallReport = stalls.map(finishStallReport)
        let stats = samples.map(LatencyStats.init)
        progress.clear()
        let report = LatencyReport(period: period, duration: duration, rounds: rounds, stats: stats)
        if interrupt.requested {
            let ticks = stats.map { "\($0.backend) \($0.ticks)" }.joined(separator: ", ")
            printError("tempo latency: interrupted; the results cover the ticks measured before it (\(ticks))")
        }
        if json {
            output(report.json(), terminator: "")
        } else if csv {
            output(report.csv(), terminator: "")
        } else {
            output(report.table(), terminator: "")
            output(report.textHistogram(), terminator: "")
        }
        if let stallReport {
            if json || csv { printError(String(stallReport.dropLast())) } else { output(stallReport, terminator: "") }
        }
        if let svg, let svgFile {
            try write(report.svg(), to: svgFile, path: svg)
            if !json && !csv { output("\nwrote \(svg)") }
        }
        if interrupt.requested { throw ExitCode(128 + SIGINT) }
    }

    /// Adds the stall report's instrument, and arms the `--block-once` timer, when asked.
    private func startStallReport() throws -> (StallRecorder, TimerInstruments.Registration, TempoTimer?)? {
        guard let (threshold, block) = try stallOptions() else { return nil }
        let recorder = StallRecorder(threshold: threshold)
        let registration = try TimerInstruments.add(recorder)
        return (recorder, registration, try block.map(armBlockingTimer))
    }

    /// Removes the instrument (after the `--block-once` stall was reported) and returns the report's text.
    private func finishStallReport(_ stalls: (StallRecorder, TimerInstruments.Registration, TempoTimer?)) -> String {
        let (recorder, registration, blocker) = stalls
        if blocker != nil, !recorder.waitForBlock(seconds: 120) {
            printError("warning: the --block-once timer's stall was not reported within 120 s")
        }
        TimerInstruments.remove(registration)
        return recorder.report()
    }

    /// Below this many ticks per backend and round, `--rounds` draws a warning.
    static let fewestTicksPerSlice = 100
}

/// The exit status for an output file that cannot be created (`EX_CANTCREAT` in sysexits.h).
let exitCannotCreate = ExitCode(73)

/// Opens `path` for writing, creating or replacing the file; reports the reason on standard error and throws exit
/// status 73 when it cannot be created.
func openForWriting(_ path: String) throws -> UnsafeMutablePointer<FILE> {
    guard let file = fopen(path, "w") else {
        printError("Error: cannot create '\(path)': \(String(cString: strerror(errno)))")
        throw exitCannotCreate
    }
    return file
}

/// Writes `contents` to `file` and closes it; exit status 74 when the writing fails (a full disk).
func write(_ contents: String, to file: UnsafeMutablePointer<FILE>, path: String) throws {
    let failed = fputs(contents, file) < 0
    if fclose(file) != 0 || failed {
        printError("Error: cannot write '\(path)': \(String(cString: strerror(errno)))")
        throw ExitCode(exitIOError)
    }
}
