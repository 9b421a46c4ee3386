import Foundation
import Testing

@Suite struct CountdownCommandTests {
    @Test func countsDownAndFinishes() async throws {
        let output = try await TempoBinary.run(["countdown", "300ms"])
        #expect(output.status == 0)
        #expect(output.stdout.hasPrefix("countdown: 300ms, 00:00.3 left\n"))
        #expect(output.stdout.contains("done after 00:00."))
    }

    /// Stopped for 1 s of a 6 s countdown: at SIGCONT at most 5 s are left (4.6 s when the stop began 0.4 s after the
    /// first line), however slowly the process started. A countdown that counted its own redraws instead of reading
    /// the clock would show about 5.6 s. The countdown is long so that a loaded machine, which may deliver the first
    /// line to this test seconds late, still stops it before it ends (a 2.5 s one failed once that way, it seems).
    /// The stop waits for the first line, which `tempo` prints after installing its SIGCONT handler: stopped
    /// before that (a loaded machine, a sanitizer), it would resume without a handler and print no "resumed:" line.
    @Test func timeLeftAfterStopAndContinueComesFromTheClock() async throws {
        let output = try await TempoBinary.run(["countdown", "6s"], readyWhenStdoutContains: "countdown:") {
            process in
            // Real time: the countdown is a child process on the real clock, stopped here for 1 s so that the test
            // can check that the time left afterwards comes from the clock, not from ticks counted.
            Foundation.Thread.sleep(forTimeInterval: 0.4)
            kill(process.processIdentifier, SIGSTOP)
            Foundation.Thread.sleep(forTimeInterval: 1.0)
            kill(process.processIdentifier, SIGCONT)
        }
        #expect(output.status == 0)
        let resumed = output.stdout.split(separator: "\n").first { $0.hasPrefix("resumed: ") }
        let left = resumed.flatMap { Double($0.dropFirst("resumed: 00:".count).prefix(4)) }
        #expect(left != nil, "stdout: \(output.stdout)")
        #expect((left ?? 99) <= 5.0, "stdout: \(output.stdout)")
        #expect(output.stdout.contains("done after"))
    }
}
