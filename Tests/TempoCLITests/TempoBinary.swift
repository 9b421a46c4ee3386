import Dispatch
import Foundation
import Synchronization
import Testing

/// Runs the built `tempo` executable end to end, like swift-argument-parser's `AssertExecuteCommand`.
///
/// The binary is looked up next to the test bundle (`.build/<triple>/debug/tempo`); CI builds it with
/// `swift build --build-tests` before `swift test`. `TEMPO_BINARY=/path/to/tempo` runs the tests against another
/// build (for example an older one, to check that a test fails without its fix).
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
        if let path = ProcessInfo.processInfo.environment["TEMPO_BINARY"] {
            return URL(fileURLWithPath: path)
        }
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
    /// The default `timeout` only catches a hang: `tempo latency --duration 100ms` takes 1.6 s in a debug build
    /// but 15 s in CI's ThreadSanitizer build at load 17, and more beside the rest of the suite (a 30 s bound killed
    /// it there).
    ///
    /// `during` runs once stdout (or stderr) contains `ready`, when given (after at most 60 s). With `stdoutFile`,
    /// standard output goes to that file (created or truncated; `/dev/full` to make writes fail) instead of a pipe,
    /// and ``Output/stdout`` is empty. With `inTerminal`, `tempo` runs on a pseudo-terminal (through util-linux
    /// `script`), which then carries both its streams: ``Output/stdout`` has them, with the terminal's line ends.
    ///
    /// `environment` adds variables to (or replaces them in) the test process's environment for `tempo`.
    ///
    /// With `leakCheckAtExit` false, a sanitizer build of `tempo` skips LeakSanitizer's check at exit (`detect_leaks=0`
    /// added to `ASAN_OPTIONS`): for a process the test stops with a signal in the middle of its work, whose exit
    /// finds objects its tasks still hold (a `tempo every` stopped during its start was reported, about once in four
    /// whole-suite runs under ASan, for the plan it had just parsed).
    ///
    /// The process is started, signalled and waited for on a thread of its own, not on the test's: a test that
    /// blocked a thread of Swift concurrency's cooperative pool (two threads on a 2-core machine) for seconds
    /// starved the async tests running beside it.
    static func run(
        _ arguments: [String],
        timeout: TimeInterval = 120,
        readyWhenStdoutContains ready: String? = nil,
        readyWhenStderrContains readyOnStderr: String? = nil,
        stdoutFile: String? = nil,
        inTerminal: Bool = false,
        leakCheckAtExit: Bool = true,
        environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation,
        during: @escaping @Sendable (Process) throws -> Void = { _ in }
    ) async throws -> Output {
        guard let url else {
            Issue.record("tempo binary not found next to the tests: run `swift build --build-tests` first")
            throw CancellationError()
        }
        let launch =
            inTerminal
            ? Launch(
                executable: URL(fileURLWithPath: "/usr/bin/script"),
                arguments: ["-qec", ([url.path] + arguments).map(shellQuoted).joined(separator: " "), "/dev/null"],
                stdoutFile: stdoutFile, leakCheckAtExit: leakCheckAtExit, environment: environment)
            : Launch(
                executable: url, arguments: arguments, stdoutFile: stdoutFile, leakCheckAtExit: leakCheckAtExit,
                environment: environment)
        let ready = Ready(stdout: ready, stderr: readyOnStderr)
        let (output, timedOut) = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result { try runBlocking(launch, timeout: timeout, ready: ready, during: during) })
            }
        }
        if timedOut {
            Issue.record(
                "tempo \(arguments.joined(separator: " ")) did not finish within \(timeout) s",
                sourceLocation: sourceLocation)
        }
        return output
    }

    /// What to start.
    private struct Launch {
        let executable: URL
        let arguments: [String]
        let stdoutFile: String?
        let leakCheckAtExit: Bool
        let environment: [String: String]
    }

    /// What to wait for before `during`.
    private struct Ready {
        let stdout: String?
        let stderr: String?

        var isSet: Bool { stdout != nil || stderr != nil }

        func seen(in collected: Collected) -> Bool {
            stdout.map { collected.stdout.contains($0) } ?? stderr.map { collected.stderr.contains($0) } ?? true
        }
    }

    private static func shellQuoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func runBlocking(
        _ launch: Launch,
        timeout: TimeInterval,
        ready: Ready,
        during: (Process) throws -> Void
    ) throws -> (Output, timedOut: Bool) {
        let process = Process()
        process.executableURL = launch.executable
        process.arguments = launch.arguments
        if !launch.leakCheckAtExit || !launch.environment.isEmpty {
            var environment = ProcessInfo.processInfo.environment.merging(launch.environment) { $1 }
            // Options later in the list override earlier ones.
            if !launch.leakCheckAtExit { environment["ASAN_OPTIONS", default: ""] += " detect_leaks=0" }
            process.environment = environment
        }
        let stdout = Pipe()
        let stderr = Pipe()
        if let path = launch.stdoutFile {
            // A device (`/dev/full`) is opened as it is, never created.
            guard path.hasPrefix("/dev/") || FileManager.default.createFile(atPath: path, contents: nil),
                let file = FileHandle(forWritingAtPath: path)
            else { throw CocoaError(.fileWriteUnknown) }
            process.standardOutput = file
            try stdout.fileHandleForWriting.close()
        } else {
            process.standardOutput = stdout
        }
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
        if ready.isSet {
            // Real time, up to 60 s on a loaded machine: `during` acts only once the process printed `ready`.
            let readyBy = Date().addingTimeInterval(60)
            while !ready.seen(in: collected) && process.isRunning && Date() < readyBy {
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
