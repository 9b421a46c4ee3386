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
              tempo every --cron "<cron or plan text>" [--tz <zone>] [--count <n>] [--late <policy>] [--shell] \
            -- <command> ...
            """,
        discussion: """
            The first run starts at once, run k at start + k·INTERVAL however long the runs take, so \
            nothing drifts. The command runs directly (no shell) unless you pass --shell; its standard \
            output and error pass through, and its standard input is closed (/dev/null), so a command that \
            reads input sees its end at once. When a run is due while the previous one is still going, --late \
            decides: coalesce (default) starts one run as soon as the current one ends, burst starts \
            one run per missed tick back to back, skip waits for the next tick. Non-zero exits are \
            reported and counted. Each run gets a process group of its own. Ctrl-C (SIGINT), SIGTERM, \
            SIGHUP (a closed terminal) or Ctrl-\\ (SIGQUIT) stops the schedule, sends the same signal to the \
            running command's process group and waits for it (a second signal kills the group with SIGKILL), \
            prints a summary and exits with 128 + the signal number: 130 for Ctrl-C, 143 for SIGTERM, 129 for \
            SIGHUP, 131 for SIGQUIT. Otherwise the exit status is 0 when every run succeeded and 1 otherwise; \
            127 when the command is not found, 126 when it is not executable, 64 for bad usage. \
            With --cron (or its other name --plan) instead of an interval, runs start at the dates of the cron \
            text or plan text that `tempo next` accepts ("0 9 * * MON-FRI", "every weekday at 09:00"), in --tz \
            (default: the current zone), on the wall clock; the first date is printed at once and the first \
            run starts then.
            """
    )

    /// The signals that stop the schedule and are forwarded to the running command's process group.
    static let stopSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    @Argument(help: "The interval, like 250ms, 1.5s, 2m or 1h30m (or use --cron).")
    var interval: String?

    @Option(
        name: [.customLong("cron"), .customLong("plan")],
        help: "Run at the dates of this cron or plan text instead of every interval, like \"*/5 * * * *\"."
    )
    var cron: String?

    @Option(name: .long, help: "The time zone of --cron, like Europe/Berlin (default: the current zone).")
    var tz: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: "Stop after this many ticks of the schedule (default: until Ctrl-C).")
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
        if cron == nil, let tz {
            throw ValidationError("--tz '\(tz)' applies only to --cron; an <interval> runs on the monotonic clock")
        }
        try validateCount(count, option: "--count")
        guard let first = command.first else {
            throw ValidationError(
                "missing the command to run: tempo every \(interval ?? "--cron ...") -- COMMAND [ARGS...]")
        }
        if !shell { _ = try executablePath(first) }
    }

    /// The plan of `--cron` in `--tz`, or a usage error naming the bad field or zone.
    private func cronPlan() throws -> (Plan, TimeZone) {
        do {
            return try parsePlan(cron ?? "", tz: tz, anchor: Date())
        } catch {
            throw ValidationError("--cron: \(planErrorText(error))")
        }
    }

    func run() async throws {
        let invocation =
            shell
            ? ["/bin/sh", "-c", command.joined(separator: " ")] : [try executablePath(command[0])] + command.dropFirst()
        let runner = CommandScheduleRunner(invocation: invocation, policy: late.policy)
        let watcher = SignalWatcher.watch(Self.stopSignals) { number in runner.interrupt(signal: number) }
        let summary: CommandScheduleRunner.Summary
        if let interval {
            summary = try await runner.run(every: parseDuration(interval, option: "<interval>"), count: count)
        } else {
            let (plan, zone) = try cronPlan()
            if let first = try? plan.nextDate(after: Date()) {
                printError("tempo every: first run at \(planDateFormatter(in: zone).string(from: first))")
            } else {
                printError("tempo every: the plan has no dates after now")
            }
            summary = try await runner.run(plan: plan, count: count)
        }
        watcher?.cancel()
        printError(summary.text)
        if let signal = summary.signal {
            // As shells report a command killed by a signal.
            throw ExitCode(128 + signal)
        }
        if summary.failures > 0 {
            throw ExitCode(1)
        }
    }

    /// The path to run for `name`; reports a command that is not found (exit status 127) or not executable (126),
    /// as shells do.
    private func executablePath(_ name: String) throws -> String {
        switch resolveExecutable(name) {
        case .found(let path):
            return path
        case .notExecutable(let path):
            printError("Error: command '\(name)' is not executable: \(path) is not an executable file")
            throw ExitCode(126)
        case .notFound:
            printError("Error: command '\(name)' not found")
            throw ExitCode(127)
        }
    }
}

/// What `execvp` would find for a command name.
enum ResolvedExecutable: Equatable {
    /// An executable regular file.
    case found(String)
    /// A file that exists but cannot be executed (no execute permission, or a directory): exit status 126.
    case notExecutable(String)
    /// Nothing by that name: exit status 127.
    case notFound
}

/// Finds `name` like `execvp` does: a name with a slash is used as is, anything else is looked up on `PATH`;
/// a file that exists but is not an executable regular file is reported as such when nothing executable is found.
func resolveExecutable(_ name: String) -> ResolvedExecutable {
    guard !name.isEmpty else { return .notFound }
    func check(_ candidate: String) -> ResolvedExecutable {
        var info = stat()
        guard stat(candidate, &info) == 0 else { return .notFound }
        guard (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 else { return .notExecutable(candidate) }
        return .found(candidate)
    }
    if name.contains("/") { return check(name) }
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
    var result = ResolvedExecutable.notFound
    for directory in path.split(separator: ":") where directory.hasPrefix("/") {
        switch check("\(directory)/\(name)") {
        case .found(let candidate): return .found(candidate)
        case .notExecutable(let candidate) where result == .notFound: result = .notExecutable(candidate)
        default: continue
        }
    }
    return result
}
