import ArgumentParser
import Dispatch
import Foundation
import Tempo
import TempoPlans

#if canImport(Glibc)
import Glibc
#endif

/// `tempo every`: runs a command on a drift-free schedule, like `watch` but anchored and precise.
struct EveryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "every",
        abstract: "Run a command on a drift-free schedule.",
        usage: """
            tempo every <interval> [--count <n>] [--late <policy>] [--shell] -- <command> [<args> ...]
              tempo every --cron "<cron text>" [--tz <zone>] [--count <n>] [--late <policy>] [--shell] -- <command> ...
            """,
        discussion: """
            The first run starts at once, run k at start + k·INTERVAL however long the runs take, so \
            nothing drifts. The command runs directly (no shell) unless you pass --shell, and its \
            output passes through. When a run is due while the previous one is still going, --late \
            decides: coalesce (default) starts one run as soon as the current one ends, burst starts \
            one run per missed tick back to back, skip waits for the next tick. Non-zero exits are \
            reported and counted. Each run gets a process group of its own. Ctrl-C (SIGINT) or SIGTERM \
            stops the schedule, sends the same signal to the running command's process group and waits \
            for it (a second signal kills the group with SIGKILL), prints a summary and exits with \
            128 + the signal number: 130 for Ctrl-C, 143 for SIGTERM. Otherwise the exit status is 0 when \
            every run succeeded and 1 otherwise; 127 when the command is not found, 64 for bad usage. \
            With --cron instead of an interval, runs start at the dates of the cron text (in --tz, default the \
            current zone) on the wall clock, the first at the next such date; see `tempo next`.
            """
    )

    @Argument(help: "The interval, like 250ms, 1.5s, 2m or 1h30m (or use --cron).")
    var interval: String?

    @Option(name: .long, help: "Run at the dates of this cron text instead of every interval, like \"*/5 * * * *\".")
    var cron: String?

    @Option(name: .long, help: "The time zone of --cron, like Europe/Berlin (default: the current zone).")
    var tz: String?

    @Option(name: .long, help: "Stop after this many ticks of the schedule (default: until Ctrl-C).")
    var count: Int?

    @Option(name: .long, help: "What to do when a run is due while the previous one is still going.")
    var late: LatePolicyOption = .coalesce

    @Flag(name: .long, help: "Run the command with /bin/sh -c, joining its words with spaces.")
    var shell = false

    @Argument(parsing: .postTerminator, help: "The command and its arguments, after --.")
    var command: [String] = []

    mutating func validate() throws {
        switch (interval, cron) {
        case (let interval?, nil): _ = try parseDuration(interval, option: "<interval>")
        case (nil, _?): _ = try cronPlan()
        case (_?, _?): throw ValidationError("give either an <interval> or --cron, not both")
        case (nil, nil): throw ValidationError("missing the <interval> (or --cron \"<cron text>\")")
        }
        try validateCount(count, option: "--count")
        guard let first = command.first else {
            throw ValidationError(
                "missing the command to run: tempo every \(interval ?? "--cron ...") -- COMMAND [ARGS...]")
        }
        if !shell && resolveExecutable(first) == nil {
            throw commandNotFound(first)
        }
    }

    /// The plan of `--cron` in `--tz`, or a usage error naming the bad field or zone.
    private func cronPlan() throws -> Plan {
        do {
            let zone = try tz.map { try Plan.timeZone(identifier: $0) } ?? TimeZone.current
            return try Plan.cron(cron ?? "", in: zone)
        } catch let error as PlanError {
            throw ValidationError("--cron: '\(error.text)': \(error.description)")
        }
    }

    func run() async throws {
        let invocation: [String]
        if shell {
            invocation = ["/bin/sh", "-c", command.joined(separator: " ")]
        } else {
            guard let path = resolveExecutable(command[0]) else {
                throw commandNotFound(command[0])
            }
            invocation = [path] + command.dropFirst()
        }
        let runner = CommandScheduleRunner(invocation: invocation, policy: late.policy)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { runner.interrupt(signal: number) }
            source.resume()
            return source
        }
        let summary =
            if let interval {
                try await runner.run(every: parseDuration(interval, option: "<interval>"), count: count)
            } else {
                try await runner.run(plan: cronPlan(), count: count)
            }
        for source in sources { source.cancel() }
        printError(summary.text)
        if let signal = summary.signal {
            // As shells report a command killed by a signal.
            throw ExitCode(128 + signal)
        }
        if summary.failures > 0 {
            throw ExitCode(1)
        }
    }

    /// Reports a command that cannot be run and returns the exit status shells use for it (127).
    private func commandNotFound(_ name: String) -> ExitCode {
        printError("Error: command '\(name)' not found or not executable")
        return ExitCode(127)
    }
}

/// Finds `name` like `execvp` does: a name with a slash is used as is, anything else is looked up on `PATH`.
///
/// - Returns: The path of an executable file, or `nil`.
func resolveExecutable(_ name: String) -> String? {
    guard !name.isEmpty else { return nil }
    if name.contains("/") {
        return access(name, X_OK) == 0 ? name : nil
    }
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where directory.hasPrefix("/") {
        let candidate = "\(directory)/\(name)"
        var info = stat()
        if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
            return candidate
        }
    }
    return nil
}
