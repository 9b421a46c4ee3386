import ArgumentParser

#if canImport(Glibc)
// @preconcurrency: C's `stdout` is a global variable, which stdio locks on every call.
@preconcurrency import Glibc
#endif

/// The version `tempo --version` prints; the package's release tag names the same version.
let tempoVersion = "0.1.0"

/// The `tempo` command and its subcommands.
struct TempoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tempo",
        abstract: "Measure timer punctuality and run things on a drift-free schedule.",
        version: tempoVersion,
        subcommands: tempoSubcommands
    )
}

#if Jobs
private let tempoSubcommands: [any ParsableCommand.Type] = [
    LatencyCommand.self, BenchCommand.self, EveryCommand.self, CountdownCommand.self, TickCommand.self,
    NextCommand.self, JobsCommand.self,
]
#else
private let tempoSubcommands: [any ParsableCommand.Type] = [
    LatencyCommand.self, BenchCommand.self, EveryCommand.self, CountdownCommand.self, TickCommand.self,
    NextCommand.self,
]
#endif

/// The entry point: makes standard output line-buffered, rejects negative values by name, then runs the command.
@main
enum TempoMain {
    static func main() async {
        // Line by line even into a pipe or a file (`tempo tick | tee log`, `tempo tick > log`): every line is
        // written when it is printed, so nothing printed is lost when a signal ends the process.
        setvbuf(stdout, nil, _IOLBF, 0)
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let message = negativeValueMessage(in: arguments) {
            let known = TempoCommand.configuration.subcommands.map { $0._commandName }
            let command = known.contains(arguments[0]) ? "tempo \(arguments[0])" : "tempo"
            printError("Error: \(message)\n  See '\(command) --help' for more information.")
            exit(ExitCode.validationFailure.rawValue)
        }
        await TempoCommand.main()
        requireOutputWritten()
    }
}

/// The names of the subcommands' positional values, for messages about them.
private let positionalNames = ["every": "<interval>", "countdown": "<duration>", "next": "<plan>"]

/// A message naming the first negative value among `arguments` (before `--`), or `nil`.
///
/// ArgumentParser reads `-5ms` or `-1` as an unknown option and reports a missing value; no option of `tempo` is
/// a dash followed by a digit, so such a word is a negative value given to the option before it or to the
/// subcommand's positional value.
func negativeValueMessage(in arguments: [String]) -> String? {
    for (index, argument) in arguments.enumerated() {
        if argument == "--" { return nil }
        guard argument.count > 1, argument.hasPrefix("-") else { continue }
        let second = argument[argument.index(after: argument.startIndex)]
        guard second.isNumber || second == "." else { continue }
        let previous = index > 0 ? arguments[index - 1] : ""
        let name =
            previous.hasPrefix("--") && !previous.contains("=")
            ? previous : positionalNames[arguments.first ?? ""] ?? "a value"
        return "\(name): '\(argument)' is negative; it must be positive"
    }
    return nil
}
