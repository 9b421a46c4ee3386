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
            Bytes per timer are the growth of the malloc heap (glibc mallinfo2) while the timers are armed.
            """
    )

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: "How many timers per run, like 10k 100k 1m (1 to 10m; k = 1,000, m = 1,000,000)."
    )
    var counts: [String] = ["10k", "100k"]

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: "What to arm (default: all): \(MassTimerBench.Subject.allCases.map(\.rawValue).joined(separator: ", "))."
    )
    var subjects: [String] = []

    @Flag(name: .long, help: "Do not draw the progress line.")
    var noProgress = false

    mutating func validate() throws {
        _ = try parsedCounts()
        _ = try parsedSubjects()
    }

    func parsedCounts() throws -> [Int] {
        try counts.flatMap { $0.split(separator: ",").map(String.init) }.map { text in
            guard let count = parseCount(text), (1...10_000_000).contains(count) else {
                throw ValidationError("--counts: '\(text)' is not a count from 1 to 10m (like 10k, 100k, 1m)")
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
        let progress = ProgressLine(enabled: !noProgress && isatty(2) != 0)
        var results: [MassTimerBench.Result] = []
        let steps = counts.count * subjects.count
        for (countIndex, count) in counts.enumerated() {
            for (subjectIndex, subject) in subjects.enumerated() {
                let step = countIndex * subjects.count + subjectIndex + 1
                let label = "[\(step)/\(steps)] \(subject.rawValue) × \(count)"
                progress.show(label)
                let result = try await MassTimerBench.run(subject, count: count) { done in
                    progress.show("\(label) \(Int(done * 100))%")
                }
                results.append(result)
            }
        }
        progress.clear()
        print(BenchTable(results: results).render(), terminator: "")
    }
}

/// Parses `10000`, `10k` or `1m` (k = 1,000, m = 1,000,000).
func parseCount(_ text: String) -> Int? {
    let lower = text.lowercased()
    let (digits, scale) =
        lower.hasSuffix("k")
        ? (String(lower.dropLast()), 1_000) : lower.hasSuffix("m") ? (String(lower.dropLast()), 1_000_000) : (lower, 1)
    guard let value = Int(digits), value >= 0 else { return nil }
    let (product, overflow) = value.multipliedReportingOverflow(by: scale)
    return overflow ? nil : product
}

/// The `tempo bench` result table.
struct BenchTable {
    let results: [MassTimerBench.Result]

    func render() -> String {
        let header = ["timers", "subject", "arm ns/op", "cancel ns/op", "bytes/timer", "arm ×", "cancel ×", "bytes ×"]
        var rows: [[String]] = []
        for result in results {
            let peer = results.first { $0.count == result.count && $0.subject == .dispatchSource }
            func ratio(_ value: Double, _ peerValue: Double?) -> String {
                guard let peerValue, peerValue > 0 else { return "-" }
                return formatRatio(value / peerValue)
            }
            rows.append([
                String(result.count),
                result.subject.rawValue,
                String(Int(result.armNanoseconds.rounded())),
                String(Int(result.cancelNanoseconds.rounded())),
                String(Int(result.bytesPerTimer.rounded())),
                ratio(result.armNanoseconds, peer?.armNanoseconds),
                ratio(result.cancelNanoseconds, peer?.cancelNanoseconds),
                ratio(result.bytesPerTimer, peer?.bytesPerTimer),
            ])
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 1 ? cell.padding(to: widths[column]) : cell.leftPadded(to: widths[column])
            }.joined(separator: "  ")
        }
        var text = "tempo bench: arm then cancel N one-shot timers due in 1 h; × = ratio to dispatch-source\n\n"
        text += line(header) + "\n"
        for row in rows { text += line(row) + "\n" }
        return text
    }
}
