import Dispatch
import Foundation
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
    static func run(
        _ arguments: [String],
        timeout: TimeInterval = 30,
        sourceLocation: SourceLocation = #_sourceLocation,
        during: (Process) throws -> Void = { _ in }
    ) throws -> Output {
        guard let url else {
            Issue.record("tempo binary not found next to the tests: run `swift build --build-tests` first")
            throw CancellationError()
        }
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
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(String(decoding: data, as: UTF8.self), error: isError)
            }
        }
        try process.run()
        try during(process)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            usleep(10_000)
        }
        if process.isRunning {
            process.terminate()
            Issue.record("tempo \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        group.wait()
        return Output(status: process.terminationStatus, stdout: collected.stdout, stderr: collected.stderr)
    }
}

/// The two output streams, filled from two reader threads.
private final class Collected: @unchecked Sendable {
    // @unchecked Sendable: every access goes through `lock`.
    private let lock = NSLock()
    private var out = ""
    private var err = ""

    func set(_ text: String, error: Bool) {
        lock.withLock {
            if error { err = text } else { out = text }
        }
    }

    var stdout: String { lock.withLock { out } }
    var stderr: String { lock.withLock { err } }
}
