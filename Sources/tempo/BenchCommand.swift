import ArgumentParser
import Tempo
import TempoTools

#if canImport(Glibc)
import Glibc
#endif

/// `tempo bench`: arm and cancel many timers with each backend and compare the cost per timer.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Arm and cancel many timers with each backend; compare ns per operation and bytes per timer.",
        discussion: """
            For each count, every subject arms COUNT one-shot timers due in an hour, then cancels them, \
            one subject after another. Times are wall-clock, so compare the rows of one run (the ratio \
            columns are against dispatch-source at the same count), not numbers from different runs. \
            Bytes per timer are the growth of the malloc heap (glibc mallinfo2) while the timers are armed. \
            With --rounds N, the whole set runs N times with the subject order reversed every other round; the \
            table shows medians, and each ratio is the median of the rounds' own ratios (arm+cancel with its \
            range), so a change of the machine's speed between rounds falls on both sides of a ratio alike. \
            Bytes are the first round's; a last column gives the later rounds', which read less when something \
            the first round grew is kept after its timers ended. Counts take k for thousands and M for millions \
            (1M); a lowercase m is rejected, as it means minutes in durations. --json prints the result as JSON. \
            A build without optimization (debug) measures several times worse and prints a warning: measure \
            with `swift run -c release tempo bench`.
            """
    )

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: "How many timers per run, like 10k 100k 1M (1 to 10M; k = 1,000, M = 1,000,000)."
    )
    var counts: [String] = ["10k", "100k"]

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: "What to arm (default: all): \(MassTimerBench.Subject.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var subjects: [String] = []

    @Option(
        name: .long, parsing: .unconditional,
        help: "How many times to run the whole set (1 to 50); the table shows medians.")
    var rounds = 1

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Measure arming from N threads (2 to 64) instead: N threads each starting and cancelling their own timers "
                + "on the shared scheduler, against one thread and against N threads each on a scheduler of its own "
                + "(the control), and the timing wheels, in short passes; the first --counts value (at most 1M, default 2k) is the "
                + "timers per thread.",
            valueName: "N"))
    var threads: Int?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Measure leeway batching instead: COUNT timers (the first --counts value, default 1k) every 1 s with "
                + "this leeway, first ticks spread over one second, 5 s each for tempo-timer, tempo-immediate and "
                + "dispatch-source; prints the process's wakeups per second against the ideal (1 s / leeway).",
            valueName: "duration"))
    var leeway: String?

    @Option(
        name: .long,
        help: "With --threads: measured passes per case (1 to 1000); the fastest pass and the median pass are reported."
    )
    var passes = 100

    @Flag(name: .long, help: "Print the result as JSON instead of a table.")
    var json = false

    @Flag(name: .long, help: "Do not draw the progress line.")
    var noProgress = false

    mutating func validate() throws {
        _ = try parsedCounts()
        _ = try parsedSubjects()
        if let threads, !(2...64).contains(threads) {
            throw ValidationError("--threads: '\(threads)' is not a number of threads from 2 to 64")
        }
        if threads != nil, leeway != nil {
            throw ValidationError("--threads and --leeway are two different measurements: give one")
        }
        if json, threads != nil || leeway != nil {
            throw ValidationError("--json: not available with --threads or --leeway, which print a table")
        }
        if let leeway {
            let value = try parseDuration(leeway, option: "--leeway")
            guard value >= .zero, value <= .seconds(1) else {
                throw ValidationError("--leeway: '\(leeway)' is not a leeway from 0 to the timers' 1 s period")
            }
            if let count = try parsedCounts().first, count > 100_000 {
                throw ValidationError("--counts: '\(count)' timers: --leeway takes at most 100k")
            }
        }
        if threads != nil, let count = try parsedCounts().first, count > 1_000_000 {
            throw ValidationError("--counts: '\(count)' timers per thread: --threads takes at most 1M")
        }
        guard (1...1_000).contains(passes) else {
            throw ValidationError("--passes: '\(passes)' is not a number of passes from 1 to 1000")
        }
        guard (1...50).contains(rounds) else {
            throw ValidationError("--rounds: '\(rounds)' is not a number of rounds from 1 to 50")
        }
    }

    func parsedCounts() throws -> [Int] {
        try counts.flatMap { $0.split(separator: ",").map(String.init) }.map { text in
            if text.hasSuffix("m") {
                throw ValidationError(
                    "--counts: '\(text)': write \(text.dropLast())M for millions (m means minutes in durations)")
            }
            guard let count = parseCount(text), (1...10_000_000).contains(count) else {
                throw ValidationError("--counts: '\(text)' is not a count from 1 to 10M (like 10k, 100k, 1M)")
            }
            return count
        }
    }

    func parsedSubjects() throws -> [MassTimerBench.Subject] {
        let names = subjects.flatMap { $0.split(separator: ",").map(String.init) }
        guard !names.isEmpty else { return MassTimerBench.Subject.allCases }
        return try names.map { name in
            guard let subject = MassTimerBench.Subject(rawValue: name) else {
                let known = MassTimerBench.Subject.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--subjects: unknown subject '\(name)' (use \(known))")
            }
            return subject
        }
    }

    func run() async throws {
        let counts = try parsedCounts()
        let subjects = try parsedSubjects()
        warnIfUnoptimized(measuring: "bench")
        if let leeway {
            let count = self.counts == ["10k", "100k"] ? 1_000 : counts.first ?? 1_000
            output(try batchingTable(count: count, leeway: try parseDuration(leeway, option: "--leeway"), text: leeway))
            return
        }
        if let threads {
            let perThread = self.counts == ["10k", "100k"] ? 2_000 : counts.first ?? 2_000
            output(try ScalingTable.measure(threads: threads, perThread: perThread, passes: passes, rounds: rounds))
            return
        }
        let progress = ProgressLine(enabled: !noProgress && isatty(2) != 0)
        var rounds: [[MassTimerBench.Result]] = []
        let steps = self.rounds * counts.count * subjects.count
        var step = 0
        for round in 0..<self.rounds {
            var results: [MassTimerBench.Result] = []
            for count in counts {
                for subject in MassTimerBench.order(of: subjects, inRound: round) {
                    step += 1
                    let label = "[\(step)/\(steps)] \(subject.rawValue) × \(count)"
                    progress.show(label)
                    let result = try await MassTimerBench.run(subject, count: count) { phase, done in
                        progress.show("\(label) \(phase) \(Int(done * 100))%")
                    }
                    results.append(result)
                }
            }
            rounds.append(results)
        }
        progress.clear()
        let table = BenchTable(summaries: MassTimerBench.summarize(rounds), rounds: self.rounds)
        output(json ? table.json() : table.render(), terminator: "")
    }
}

/// Runs ``LeewayBatching`` for every subject and renders its table.
func batchingTable(count: Int, leeway: Duration, text leewayText: String) throws -> String {
    let interval = Duration.seconds(1)
    var text = "tempo bench --leeway \(leewayText): \(count) timers every 1 s, first ticks spread over 1 s, 5 s each\n"
    text += "wakeups/s = voluntary context switches of the process per second; ideal = 1 s / leeway\n\n"
    let ideal = leeway > .zero ? interval / leeway : nil
    let idealText = ideal.map { String(Int($0.rounded())) } ?? "-"
    text += "subject".padding(to: 18) + "wakeups/s".leftPadded(to: 10) + "ticks/s".leftPadded(to: 10)
    text += "ideal".leftPadded(to: 8) + "\n"
    for subject in LeewayBatching.Subject.allCases {
        let result = try LeewayBatching.run(
            subject, count: count, interval: interval, leeway: leeway, duration: .seconds(5))
        text += subject.rawValue.padding(to: 18)
        text += String(Int(result.wakeupsPerSecond.rounded())).leftPadded(to: 10)
        text += String(Int(result.ticksPerSecond.rounded())).leftPadded(to: 10)
        text += idealText.leftPadded(to: 8) + "\n"
    }
    return text
}

/// Parses `10000`, `10k` or `1M` (k or K = 1,000, M = 1,000,000).
func parseCount(_ text: String) -> Int? {
    let (digits, scale) =
        text.lowercased().hasSuffix("k")
        ? (String(text.dropLast()), 1_000) : text.hasSuffix("M") ? (String(text.dropLast()), 1_000_000) : (text, 1)
    guard let value = Int(digits), value >= 0 else { return nil }
    let (product, overflow) = value.multipliedReportingOverflow(by: scale)
    return overflow ? nil : product
}

/// The `tempo bench` result table.
struct BenchTable {
    let summaries: [MassTimerBench.Summary]
    let rounds: Int

    func render() -> String {
        let header =
            [
                "timers", "subject", "arm ns/op", "cancel ns/op", "bytes/timer", "arm ×", "cancel ×", "bytes ×",
                "arm+cancel ×",
            ] + (rounds > 1 ? ["bytes, later rounds"] : [])
        let rows = summaries.map { summary -> [String] in
            let ratios = summary.ratios
            var both = formatRatio(ratios?.armAndCancel)
            if let range = ratios?.armAndCancelRange, rounds > 1 {
                both += " (\(formatRatio(range.lowerBound))–\(formatRatio(range.upperBound)))"
            }
            return [
                String(summary.count),
                summary.subject.rawValue,
                String(Int(summary.armNanoseconds.rounded())),
                String(Int(summary.cancelNanoseconds.rounded())),
                String(Int(summary.bytesPerTimer.rounded())),
                formatRatio(ratios?.arm),
                formatRatio(ratios?.cancel),
                formatRatio(ratios?.bytes),
                both,
            ] + (rounds > 1 ? [summary.laterBytesPerTimer.map { String(Int($0.rounded())) } ?? "-"] : [])
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 1 ? cell.padding(to: widths[column]) : cell.leftPadded(to: widths[column])
            }.joined(separator: "  ")
        }
        var text = "tempo bench: arm then cancel N one-shot timers due in 1 h; × = ratio to dispatch-source"
        if rounds > 1 {
            text += "\n\(rounds) rounds, subject order reversed every other round: medians, and each ratio the median"
            text += " of the rounds' ratios (arm+cancel: with the smallest and largest); bytes from the first round,"
            text += " and the later rounds' apart"
        }
        text += "\n\n" + line(header) + "\n"
        for row in rows { text += line(row) + "\n" }
        return text
    }
}
