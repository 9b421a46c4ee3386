import Foundation
import Testing

/// End to end: the `tempo-jobs-demo` process, told SIGTERM while a run is going, lets that run finish, starts no
/// other, and exits 0; a run that ignores cancellation is abandoned after the grace period, and the process still
/// exits 0.
@Suite struct SignalTests {
    static let demo: URL? = {
        var directory = Bundle.main.bundleURL
        if directory.pathExtension == "xctest" || !FileManager.default.fileExists(atPath: directory.path) {
            directory.deleteLastPathComponent()
        }
        let candidates = [
            directory.appendingPathComponent("tempo-jobs-demo"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("tempo-jobs-demo"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    @Test func sigtermDuringARunLetsItFinishStartsNoneAndExitsZero() async throws {
        let url = try #require(Self.demo, "tempo-jobs-demo not found next to the tests: run swift build --build-tests")
        let result = try await withCheckedThrowingContinuation { continuation in
            // A thread of its own: the waits below block, and must not block Swift concurrency's few threads.
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.runDemo(url) })
            }
        }
        #expect(result.status == 0, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(result.stdout.contains("run 1 started\nrun 1 finished\n"), "stdout: \(result.stdout)")
        #expect(!result.stdout.contains("run 2 started"), "stdout: \(result.stdout)")
        #expect(result.stdout.contains("exited"), "stdout: \(result.stdout)")
    }

    @Test func sigtermDuringARunIgnoringCancellationAbandonsItNamesTheJobAndExitsZero() async throws {
        let url = try #require(Self.demo, "tempo-jobs-demo not found next to the tests: run swift build --build-tests")
        // A run of 10 minutes that ignores cancellation; a grace period and an abandon delay of 1 s each.
        let environment = [
            "RUN_SECONDS": "600", "IGNORE_CANCELLATION": "1", "GRACE_SECONDS": "1", "ABANDON_SECONDS": "1",
        ]
        let result = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try Self.runDemo(url, environment: environment) })
            }
        }
        let output = "stdout: \(result.stdout)\nstderr: \(result.stderr)"
        #expect(result.status == 0, "\(output)")
        #expect(result.stdout.contains("run 1 started"), "\(output)")
        #expect(!result.stdout.contains("run 1 finished"), "\(output)")
        #expect(!result.stdout.contains("run 2 started"), "\(output)")
        #expect(result.stdout.contains("running=1"), "\(output)")
        #expect(result.stdout.contains("exited"), "\(output)")
        #expect(result.stderr.contains("runs ignored cancellation; returning without them"), "\(output)")
        #expect(result.stderr.contains("jobs=slow"), "\(output)")
    }

    /// Starts the demo, waits (up to 60 s of real time, a bound that only catches a hang) for its first run to
    /// start, sends SIGTERM, and waits (up to 120 s) for it to exit.
    private static func runDemo(
        _ url: URL, environment: [String: String] = ["RUN_SECONDS": "2"]
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = url
        process.environment = environment
        let pipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errorPipe
        let output = Trace()
        let errors = Trace()
        let readers = DispatchGroup()
        func reader(_ pipe: Pipe, into trace: Trace) -> Thread {
            readers.enter()
            return Thread {
                defer { readers.leave() }
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    trace.append(String(decoding: chunk, as: UTF8.self))
                }
            }
        }
        try process.run()
        reader(pipe, into: output).start()
        reader(errorPipe, into: errors).start()
        func text() -> String { output.all.joined() }
        let readyBy = Date().addingTimeInterval(60)
        while !text().contains("run 1 started") && process.isRunning && Date() < readyBy { usleep(10_000) }
        kill(process.processIdentifier, SIGTERM)
        let exitBy = Date().addingTimeInterval(120)
        while process.isRunning && Date() < exitBy { usleep(10_000) }
        // SIGKILL on a hang: SIGTERM is what the demo handles gracefully, and a run that ignores cancellation (with a
        // scheduler that waited for it) would keep the process, and this wait, going for its whole length.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        _ = readers.wait(timeout: .now() + max(1, exitBy.timeIntervalSinceNow))  // both pipes read to their end
        return (process.terminationStatus, text(), errors.all.joined())
    }
}
