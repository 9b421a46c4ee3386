import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Standard output when it is not a terminal: line by line into pipes and files, errors reported, durations echoed
/// as they are written.
@Suite struct CLIOutputTests {
    /// The file's bytes as text, with invalid UTF-8 replaced (a read while `tempo` writes can cut a `µ` in half).
    /// Read with stdio: polling with `String(contentsOfFile:encoding:)` here leaked 4,096-byte buffers allocated in
    /// FoundationEssentials' `readBytesFromFile` (LeakSanitizer in CI, swift-corelibs-foundation 6.3.1).
    static func readText(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A fresh path in the temporary directory (not created).
    private static func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "tempo-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// `tempo tick | tee log`: the header reaches the pipe while the timer is still waiting for its first tick (in
    /// an hour), not when the process ends. Block-buffered, it would arrive only at exit and be lost to SIGTERM.
    @Test func aLineReachesAPipeWhenItIsPrinted() async throws {
        let runningWhenSeen = Flag()
        let output = try await TempoBinary.run(
            ["tick", "--every", "1h", "--count", "2"], readyWhenStdoutContains: "tempo tick:"
        ) { process in
            if process.isRunning { runningWhenSeen.set() }
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(runningWhenSeen.isSet)
        #expect(output.stdout.hasPrefix("tempo tick: every 1h x 2"), "stdout: \(output.stdout)")
    }

    /// `tempo tick > file`, then Ctrl-C or SIGTERM: the lines printed before the signal are in the file. The first
    /// tick comes after 1 s, the signal once it is in the file (waited for up to 60 s of real time).
    @Test(arguments: [SIGINT, SIGTERM])
    func linesPrintedToAFileSurviveASignal(signal: Int32) async throws {
        let path = Self.temporaryPath("tick-log")
        defer { unlink(path) }
        let seenWhileRunning = Flag()
        _ = try await TempoBinary.run(["tick", "--every", "1s", "--count", "1000"], stdoutFile: path) { process in
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline {
                let text = Self.readText(path)
                if text.contains("tick 1/1000") {
                    seenWhileRunning.set()
                    break
                }
                // Real time: polls a child process's output file every 10 ms, up to 60 s on a loaded machine.
                usleep(10_000)
            }
            kill(process.processIdentifier, signal)
        }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(seenWhileRunning.isSet, "file: \(text)")
        #expect(text.hasPrefix("tempo tick: every 1s x 1000"), "file: \(text)")
        #expect(text.contains("\ntick 1/1000"), "file: \(text)")
    }

    @Test(arguments: [
        ["tick", "--every", "10ms", "--count", "3"], ["next", "@daily", "--count", "2", "--tz", "UTC"],
        ["latency", "--duration", "20ms", "--backends", "floor", "--json"],
    ])
    func writingToAFullDeviceExitsWith74AndSaysSo(arguments: [String]) async throws {
        let output = try await TempoBinary.run(arguments, stdoutFile: "/dev/full")
        #expect(output.status == 74, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("cannot write to standard output"), "stderr: \(output.stderr)")
    }

    @Test func writingToAClosedStandardOutputExitsWith74() async throws {
        let tempo = try #require(TempoBinary.url)
        let status = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let process = Process()
                        process.executableURL = URL(fileURLWithPath: "/bin/sh")
                        // `>&-` closes the descriptor: every write fails with EBADF.
                        process.arguments = ["-c", "exec \"$0\" next @daily --tz UTC >&- 2>/dev/null", tempo.path]
                        try process.run()
                        process.waitUntilExit()
                        return process.terminationStatus
                    })
            }
        }
        #expect(status == 74)
    }

    /// Durations are echoed in the form they are written in: not `1e-09 seconds`, `5400.0 seconds` or `1440000m`.
    @Test(arguments: [
        (["tick", "--every", "1ns", "--count", "1"], "tempo tick: every 1ns x 1"),
        (["tick", "--every", "90m", "--count", "1"], "tempo tick: every 1h30m x 1"),
        (["countdown", "1000d"], "countdown: 1000d, "),
    ])
    func durationsAreEchoedReadably(arguments: [String], expected: String) async throws {
        let output = try await TempoBinary.run(arguments, readyWhenStdoutContains: "\n") { process in
            kill(process.processIdentifier, SIGTERM)
        }
        #expect(output.stdout.hasPrefix(expected), "stdout: \(output.stdout)")
    }

    @Test func versionIsPrinted() async throws {
        let output = try await TempoBinary.run(["--version"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.split(separator: ".").count == 3, "stdout: \(output.stdout)")
    }
}
