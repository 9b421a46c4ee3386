import Foundation

/// Runs this test binary again, filtered to `suite`, with `variable` set, so that a measurement runs in a process of
/// its own (no other suite's handlers hold the delivery pool's threads); returns its exit status and its output,
/// standard error included.
func runAlone(suite: String, variable: String) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--testing-library", "swift-testing", "--filter", suite]
    process.environment = ProcessInfo.processInfo.environment.merging([variable: "1"]) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}
