import Foundation
import Testing

/// `tempo next` end to end: runs the built binary (found next to the test bundle; `swift build --build-tests`
/// builds it).
@Suite struct NextCommandTests {
    private static let binary: URL? = {
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

    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        guard let binary = Self.binary else {
            Issue.record("tempo binary not found next to the tests: run `swift build --build-tests` first")
            throw CancellationError()
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    @Test func printsFiveWeekdayMorningsInBerlin() throws {
        let output = try run([
            "next", "0 9 * * MON-FRI", "--count", "5", "--tz", "Europe/Berlin", "--after", "2026-03-26T12:00:00Z",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(
            output.stdout.split(separator: "\n") == [
                "Fri 2026-03-27 09:00:00 +01:00", "Mon 2026-03-30 09:00:00 +02:00", "Tue 2026-03-31 09:00:00 +02:00",
                "Wed 2026-04-01 09:00:00 +02:00", "Thu 2026-04-02 09:00:00 +02:00",
            ])
    }

    @Test(arguments: [
        (["next", "0 0 32 * *"], "32"), (["next", "0 0 30 2 *"], "never fires"),
        (["next", "0 9 * * *", "--tz", "Mars/Olympus"], "Mars/Olympus"), (["next", "0 9 * * *", "--count", "0"], "0"),
        (["next", "every blursday at 9:00"], "blursday"), (["every", "--cron", "61 * * * *", "--", "true"], "61"),
        (["every", "1s", "--cron", "* * * * *", "--", "true"], "not both"),
    ])
    func badInputIsAUsageErrorNamingTheValue(arguments: [String], named: String) throws {
        let output = try run(arguments)
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains(named), "\(output.stderr)")
    }

    /// Issue #26: fullwidth digits (as a Japanese input method types them) trapped the parser, so the CLI crashed.
    @Test(arguments: ["every day at ２:00", "every day at 9:٣٠", "٣ * * * *"])
    func nonASCIIDigitsAreAUsageErrorNotACrash(text: String) throws {
        let output = try run(["next", text])
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains("not an ASCII number"), "\(output.stderr)")
    }
}
