import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `tempo every` under SIGINT/SIGTERM/SIGHUP/SIGQUIT, and the exit statuses of bad input that is not a plain usage error.
@Suite struct CLISignalAndEdgeTests {
    /// A fresh path in the temporary directory (not created).
    private static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "tempo-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// Waits (real time, up to 60 s on a loaded machine) until the child has created `path`.
    private static func waitForFile(_ path: String) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: path) {
            guard Date() < deadline else { return false }
            usleep(10_000)  // real time: the child process creates the file
        }
        return true
    }

    /// The child traps the signal, reports it, and exits. It runs `sleep` in a foreground subshell that creates
    /// the marker and then becomes the `sleep` (`exec`): from the moment the marker exists, the process that must
    /// get the signal exists too, in the same process group, with the default disposition (a subshell does not
    /// inherit the trap), so it ends at once and only then does the shell run its trap. The `sleep` shares the
    /// output pipe, so a `sleep` left running would hold the test for 30 s. SIGHUP (a closed terminal) and SIGQUIT
    /// (Ctrl-\) stop it like the others: no orphaned run, no crash report, no next run.
    @Test(arguments: [
        (SIGINT, "INT", Int32(130)), (SIGTERM, "TERM", Int32(143)), (SIGHUP, "HUP", Int32(129)),
        (SIGQUIT, "QUIT", Int32(131)),
    ])
    func aSignalIsForwardedToTheRunsProcessGroupWaitedForAndExitsWith128PlusItsNumber(
        signal: Int32, name: String, status: Int32
    ) async throws {
        let marker = Self.temporaryPath("ready")
        defer { unlink(marker) }
        let script = "trap 'echo child got \(name); exit 0' \(name); (touch \(marker); exec sleep 600)"
        let commandStarted = Flag()
        let output = try await TempoBinary.run(["every", "1h", "--", "sh", "-c", script], timeout: 400) { process in
            if Self.waitForFile(marker) { commandStarted.set() }
            kill(process.processIdentifier, signal)
        }
        #expect(commandStarted.isSet, "the command never started")
        #expect(output.status == status, "stderr: \(output.stderr)")
        #expect(output.stdout == "child got \(name)\n", "the run was not signalled or not waited for")
        #expect(output.stderr.contains("1 run"), "stderr: \(output.stderr)")
        #expect(output.stderr.contains("(interrupted)"), "stderr: \(output.stderr)")
        #expect(!output.stderr.contains("crashed"), "stderr: \(output.stderr)")
        // Not the 600 s of the child's `sleep`: the whole group got the signal (the bound leaves a loaded machine
        // minutes).
        #expect(output.elapsed < 300)
    }

    /// A closed terminal: `tempo every` runs on a pseudo-terminal (through `script`), which is then killed, so the
    /// kernel hangs the terminal up and sends SIGHUP to its foreground process group, where `tempo` is and the run
    /// (in a process group of its own) is not. `tempo` must pass the SIGHUP on rather than leave the run orphaned.
    @Test func aClosedTerminalsHangupReachesTheRun() async throws {
        let marker = Self.temporaryPath("hangup-ready")
        let report = Self.temporaryPath("hangup-report")
        defer {
            unlink(marker)
            unlink(report)
        }
        let script = "trap 'echo got HUP > \(report); exit 0' HUP; (touch \(marker); exec sleep 600)"
        let commandStarted = Flag()
        _ = try await TempoBinary.run(["every", "1h", "--", "sh", "-c", script], timeout: 400, inTerminal: true) {
            process in
            if Self.waitForFile(marker) { commandStarted.set() }
            kill(process.processIdentifier, SIGKILL)
        }
        #expect(commandStarted.isSet, "the command never started")
        #expect(Self.waitForFile(report), "the run never got SIGHUP")
    }

    /// Ctrl-C between runs ends the schedule with a summary. The interrupt waits until the first run has started
    /// (its marker exists), so the signal handlers are installed: on a loaded machine, or under a sanitizer, `tempo`
    /// can take longer than any fixed delay to get there, and an earlier SIGINT would end it with no summary.
    @Test func interruptStopsCleanlyWithASummary() async throws {
        let marker = Self.temporaryPath("first-run")
        defer { unlink(marker) }
        let commandStarted = Flag()
        let output = try await TempoBinary.run(
            ["every", "100ms", "--", "sh", "-c", "touch \(marker); sleep 0.02"], timeout: 400
        ) { process in
            if Self.waitForFile(marker) { commandStarted.set() }
            // Real time: a child process's schedule. A few runs pass, so the interrupt finds `tempo` between runs.
            Foundation.Thread.sleep(forTimeInterval: 0.25)
            process.interrupt()
        }
        #expect(commandStarted.isSet, "the command never started")
        #expect(output.status == 130, "stderr: \(output.stderr)")  // 128 + SIGINT, as shells report it
        #expect(output.stderr.contains("(interrupted)"), "stderr: \(output.stderr)")
        #expect(output.stderr.contains("0 failed"), "stderr: \(output.stderr)")
    }

    /// A run that ignores the signal is waited for until a second signal, which kills its group.
    @Test func aSecondSignalKillsARunThatIgnoresTheFirst() async throws {
        let marker = Self.temporaryPath("stubborn")
        defer { unlink(marker) }
        let commandStarted = Flag()
        let output = try await TempoBinary.run(
            ["every", "1h", "--", "sh", "-c", "trap '' TERM; touch \(marker); sleep 600"], timeout: 400
        ) { process in
            if Self.waitForFile(marker) { commandStarted.set() }
            kill(process.processIdentifier, SIGTERM)
            // Real time: gives `tempo` time to handle the first signal (and wait for the run) before the second.
            usleep(300_000)
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(commandStarted.isSet, "the command never started")
        #expect(output.status == 143, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("killed by signal 9"), "stderr: \(output.stderr)")
        #expect(output.elapsed < 300)  // not the child's 600 s sleep
    }

    @Test(arguments: [
        ["tick", "--every", "-5ms"], ["tick", "--every=-5ms"], ["countdown", "5s", "--refresh", "-1s"],
    ])
    func aNegativeDurationIsNamedAsABadValueNotAMissingOne(arguments: [String]) async throws {
        let output = try await TempoBinary.run(arguments)
        let value = arguments.last!.replacingOccurrences(of: "--every=", with: "")
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("'\(value)'"), "stderr: \(output.stderr)")
        #expect(!output.stderr.contains("Missing value"), "stderr: \(output.stderr)")
    }

    @Test(arguments: [["tick", "--every", "0.1ns"], ["every", "0.5ns", "--", "true"], ["countdown", "0.9ns"]])
    func aSubNanosecondDurationIsAUsageError(arguments: [String]) async throws {
        let output = try await TempoBinary.run(arguments)
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("shorter than 1 nanosecond"), "stderr: \(output.stderr)")
    }

    /// An unknown `TEMPO_SCHEDULER_BACKEND` does not stop a program that uses Tempo (it used to be a `fatalError`
    /// in the library): the run uses the default backend and says once, on stderr, which value it ignored.
    @Test func anUnknownSchedulerBackendIsIgnoredWithOneLineOnStderr() async throws {
        let output = try await TempoBinary.run(
            ["tick", "--every", "10ms", "--count", "2"], environment: ["TEMPO_SCHEDULER_BACKEND": "no-such-backend"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let named = output.stderr.split(separator: "\n").filter { $0.contains("=no-such-backend") }
        #expect(named.count == 1, "stderr: \(output.stderr)")
        #expect(named.first?.contains("TEMPO_SCHEDULER_BACKEND") == true, "stderr: \(output.stderr)")
        #expect(output.stdout.contains("tempo tick: every 10ms x 2"), "stdout: \(output.stdout)")
    }

    @Test func aCommandThatDoesNotExistExitsWith127() async throws {
        let output = try await TempoBinary.run(["every", "1s", "--", "no-such-command-tempo"])
        #expect(output.status == 127, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("'no-such-command-tempo'"), "stderr: \(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test func aFileThatIsNotExecutableExitsWith126() async throws {
        let path = Self.temporaryPath("not-executable")
        defer { unlink(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data("echo hi\n".utf8)))
        let output = try await TempoBinary.run(["every", "1s", "--", path])
        #expect(output.status == 126, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("not executable"), "stderr: \(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    /// The default run measures for 5 s per backend; the check must fail before any of it: the line that announces
    /// the measurement is never printed (a time bound would assume a quiet machine). `/proc` exists and passes a
    /// permission check (for root too), but no file can be created in it: only opening the file tells.
    @Test(arguments: ["/no-such-directory-tempo/plot.svg", "/", ".", "/proc/tempo-plot.svg"])
    func anSVGPathThatCannotBeCreatedFailsBeforeTheRunWith73(path: String) async throws {
        let output = try await TempoBinary.run(["latency", "--no-progress", "--svg", path])
        #expect(output.status == 73, "stderr: \(output.stderr)")
        #expect(!output.stderr.contains("measuring"), "stderr: \(output.stderr)")
        #expect(output.stderr.contains("cannot create '\(path)'"), "stderr: \(output.stderr)")
        #expect(output.stdout.isEmpty)
    }
}
