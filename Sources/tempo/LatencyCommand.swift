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
            clock_nanosleep(TIMER_ABSTIME) and 1 ns timer slack.
            """
    )

    @Option(name: .long, parsing: .unconditional, help: "The tick period, like 1ms or 500us (at least 10us).")
    var period: String = "1ms"

    @Option(name: .long, parsing: .unconditional, help: "How long to measure each backend, like 5s or 300ms.")
    var duration: String = "5s"

    @Option(name: .long, help: "How many turns the backends take (default: one per second of DURATION, 1 to 10).")
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
        // Before the run, not after it: a path that cannot be created fails at once (EX_CANTCREAT).
        if let svg { try checkCreatable(svg) }
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
        let progress = ProgressLine(enabled: !noProgress && isatty(2) != 0)
        let slots = try LatencyProbe.slotCount(period: period, duration: duration)
        let rounds = self.rounds ?? min(10, slots, max(1, Int(duration / .seconds(1))))
        let samples = try LatencyProbe.measure(backends, every: period, for: duration, rounds: rounds) { done in
            let bar = String(repeating: "#", count: Int(done * 30)).padding(to: 30)
            progress.show("measuring \(backends.count) backends, \(rounds) rounds [\(bar)] \(Int(done * 100))%")
        }
        let stats = samples.map(LatencyStats.init)
        progress.clear()
        let report = LatencyReport(period: period, duration: duration, rounds: rounds, stats: stats)
        if json {
            print(report.json(), terminator: "")
        } else if csv {
            print(report.csv(), terminator: "")
        } else {
            print(report.table(), terminator: "")
            print(report.textHistogram(), terminator: "")
        }
        if let svg {
            try writeFile(svg, contents: report.svg())
            if !json && !csv { print("\nwrote \(svg)") }
        }
    }
}

/// The exit status for an output file that cannot be created (`EX_CANTCREAT` in sysexits.h).
let exitCannotCreate = ExitCode(73)

/// Checks that `path` can be created or replaced: its directory exists and is writable, and `path` is not a
/// directory. Reports the reason on standard error and throws exit status 73 otherwise.
func checkCreatable(_ path: String) throws {
    let directory: String
    if let slash = path.lastIndex(of: "/") {
        directory = slash == path.startIndex ? "/" : String(path[..<slash])
    } else {
        directory = "."
    }
    var info = stat()
    let problem: String?
    if path.isEmpty || path.hasSuffix("/") {
        problem = "it names no file"
    } else if stat(directory, &info) != 0 {
        problem = "directory '\(directory)' does not exist"
    } else if (info.st_mode & S_IFMT) != S_IFDIR {
        problem = "'\(directory)' is not a directory"
    } else if access(directory, W_OK) != 0 {
        problem = "directory '\(directory)' is not writable"
    } else if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
        problem = "it is a directory"
    } else {
        problem = nil
    }
    if let problem {
        printError("Error: cannot create '\(path)': \(problem)")
        throw exitCannotCreate
    }
}

/// Writes `contents` to `path`, replacing the file; exit status 73 when it cannot be created.
func writeFile(_ path: String, contents: String) throws {
    guard let file = fopen(path, "w") else {
        printError("Error: cannot create '\(path)': \(String(cString: strerror(errno)))")
        throw exitCannotCreate
    }
    defer { fclose(file) }
    fputs(contents, file)
}
