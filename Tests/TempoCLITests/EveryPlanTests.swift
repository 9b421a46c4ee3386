import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `tempo every --cron`: the plan texts it takes, what it prints before the first date, and options that need it.
@Suite struct EveryPlanTests {
    /// The first date (next New Year in UTC, months away) is printed at once; SIGTERM then ends the wait.
    @Test(arguments: [["--cron", "0 0 1 1 *"], ["--cron", "every day at 00:00 in jan"], ["--plan", "@yearly"]])
    func theFirstDateIsPrintedAtOnceForCronAndPlanText(plan: [String]) async throws {
        let runningWhenSeen = Flag()
        let output = try await TempoBinary.run(
            ["every"] + plan + ["--tz", "UTC", "--", "true"], readyWhenStderrContains: "first run at"
        ) { process in
            if process.isRunning { runningWhenSeen.set() }
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(runningWhenSeen.isSet, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("-01-01 00:00:00 +00:00"), "stderr: \(output.stderr)")
        #expect(output.status == 143, "stderr: \(output.stderr)")
    }

    /// A SIGTERM at any moment of the start ends the wait: before the handler is installed it kills `tempo` (status
    /// 15, the signal), after it `tempo` reports it (143). With Dispatch signal sources, which register
    /// asynchronously after the signal was set to `SIG_IGN`, a signal in between was lost and `tempo` waited for
    /// New Year (seen beside the whole suite at load 20).
    @Test(arguments: [0, 2, 5, 10, 20, 40, 80, 160])
    func aStopSignalDuringTheStartIsNeverLost(delayMilliseconds: Int) async throws {
        for _ in 0..<3 {
            // Stopped mid-start, `tempo` exits holding what it allocated: no leak check at that exit.
            let output = try await TempoBinary.run(
                ["every", "--cron", "@yearly", "--", "true"], timeout: 60, leakCheckAtExit: false
            ) { process in
                // Real time: the signal must land at this moment of a child process's start.
                usleep(useconds_t(delayMilliseconds * 1_000))
                kill(process.processIdentifier, SIGTERM)
            }
            #expect([SIGTERM, 128 + SIGTERM].contains(output.status), "stderr: \(output.stderr)")
        }
    }

    @Test func aTimeZoneWithoutCronIsRejected() async throws {
        let output = try await TempoBinary.run(["every", "10ms", "--tz", "UTC", "--count", "1", "--", "true"])
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("--tz 'UTC' applies only to --cron"), "stderr: \(output.stderr)")
    }

    @Test func helpSaysTheCommandsStandardInputIsClosed() async throws {
        let output = try await TempoBinary.run(["every", "--help"])
        #expect(output.status == 0)
        // ArgumentParser wraps the text at 80 columns.
        let text = output.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("its standard input is closed (/dev/null)"), "stdout: \(output.stdout)")
    }
}
