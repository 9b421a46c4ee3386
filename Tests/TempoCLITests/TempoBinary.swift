import Dispatch
import Foundation
import Synchronization
import Testing

/// Runs the built `tempo` executable end to end, like swift-argument-parser's `AssertExecuteCommand`.
///
/// The binary is looked up next to the test bundle (`.build/<triple>/debug/tempo`); CI builds it with
/// `swift build --build-tests` before `swift test`.
struct TempoBinary {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
        /// From start to exit of the process, measured on the thread that waits for it (so it does not include
        /// the test task's wait to be resumed).
        let elapsed: TimeInterval
    }

    static let url: URL? = {
        var directory = Bundle.main.bundleURL
        if directory.pathExtension == "xctest" || !FileManager.default.fileExists(atPath: directory.path) {
            directory.deleteLastPathComponent()
        }
        let candidates = [
            directory.appendingPathComponent("tempo"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tempo"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Starts `tempo arguments...`; `during` runs while it is going (to send signals); waits at most `timeout`.
    ///
    /// The process is started, signalled and waited for on a thread of its own, not on the test's: a test that
    /// blocked a thread of Swift concurrency's cooperative pool (two threads on a 2-core machine) for seconds
    /// starved the async tests running beside it.
    static func run(
        _ arguments: [String],
        timeout: TimeInterval = 30,
        readyWhenStdoutContains ready: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        during: @escaping @Sendable (Process) throws -> Void = { _ in }
    ) async throws -> Output {
        guard let url else {
            Issue.record("tempo binary not found next to the tests: run `swift build --build-tests` first")
            throw CancellationError()
        }
        let (output, timedOut) = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try runBlocking(url, arguments, timeout: timeout, ready: ready, during: during) })
            }
        }
        if timedOut {
            Issue.record(
                "tempo \(arguments.joined(separator: " ")) did not finish within \(timeout) s",
                sourceLocation: sourceLocation)
        }
        return output
    }

    private static func runBlocking(
        _ url: URL,
        _ arguments: [String],
        timeout: TimeInterval,
        ready: String?,
        during: (Process) throws -> Void
    ) throws -> (Output, timedOut: Bool) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let collected = Collected()
        let group = DispatchGroup()
        for (pipe, isError) in [(stdout, false), (stderr, true)] {
            DispatchQueue.global().async(group: group) {
                // Read as it comes, so that `ready` can be checked while the process runs.
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    collected.append(chunk, error: isError)
                }
            }
        }
        let started = Date()
        try process.run()
        if let ready {
            // Real time, up to 60 s on a loaded machine: `during` acts only once the process printed `ready`.
            let readyBy = Date().addingTimeInterval(60)
            while !collected.stdout.contains(ready) && process.isRunning && Date() < readyBy {
                usleep(10_000)
            }
        }
        try during(process)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            usleep(10_000)
        }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        process.waitUntilExit()
        let elapsed = Date().timeIntervalSince(started)
        group.wait()
        let output = Output(
            status: process.terminationStatus, stdout: collected.stdout, stderr: collected.stderr, elapsed: elapsed)
        return (output, timedOut)
    }
}

/// The two output streams, filled from two reader threads.
private final class Collected: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    func append(_ data: Data, error: Bool) {
        lock.withLock {
            if error { err.append(data) } else { out.append(data) }
        }
    }

    var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }
}

/// A flag set on the thread that drives a `tempo` process and read by the test afterwards.
final class Flag: Sendable {
    private let state = Mutex(false)
    var isSet: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}
