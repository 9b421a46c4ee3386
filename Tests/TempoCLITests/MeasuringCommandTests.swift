import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `tempo latency` and `tempo bench`: warnings about settings that make the figures meaningless, Ctrl-C, progress
/// on a terminal, the count suffixes and JSON.
@Suite struct MeasuringCommandTests {
    #if DEBUG
    /// These tests run a debug build of `tempo`, which must say that its timings are not a release build's.
    @Test(arguments: [
        ["latency", "--duration", "20ms", "--backends", "floor"], ["bench", "--counts", "1k", "--subjects", "wheel"],
    ])
    func aDebugBuildWarnsThatItIsNotOptimized(arguments: [String]) async throws {
        let output = try await TempoBinary.run(arguments)
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("built without optimization"), "stderr: \(output.stderr)")
        #expect(output.stderr.contains("swift run -c release tempo \(arguments[0])"), "stderr: \(output.stderr)")
    }
    #endif

    /// 20 s in 10 rounds: Ctrl-C ends the measurement after the current 2 s slice and prints its results.
    @Test func latencyInterruptedPrintsWhatWasMeasured() async throws {
        let output = try await TempoBinary.run(
            ["latency", "--duration", "20s", "--backends", "floor", "--no-progress", "--csv"],
            readyWhenStderrContains: "Ctrl-C stops"
        ) { process in
            kill(process.processIdentifier, SIGINT)
        }
        #expect(output.status == 130, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("interrupted"), "stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("backend,ticks") == true, "stdout: \(output.stdout)")
        let ticks = lines.dropFirst().first.flatMap { $0.split(separator: ",").dropFirst().first }.flatMap { Int($0) }
        #expect((ticks ?? 0) >= 1, "stdout: \(output.stdout)")
    }

    /// 100 ticks in 99 rounds leave one tick per backend and round.
    @Test func latencyWarnsWhenRoundsLeaveTooFewTicks() async throws {
        let output = try await TempoBinary.run([
            "latency", "--duration", "100ms", "--rounds", "99", "--backends", "floor", "--no-progress",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("warning: --rounds 99 leaves 1 tick per backend"), "stderr: \(output.stderr)")
    }

    /// On a terminal (a pseudo-terminal through `script`), bench's progress names the phase and reaches 100 %.
    @Test func benchProgressNamesItsPhasesAndReachesAHundredPercent() async throws {
        let output = try await TempoBinary.run(
            ["bench", "--counts", "1k", "--subjects", "wheel"], inTerminal: true)
        #expect(output.status == 0, "output: \(output.stdout)")
        #expect(output.stdout.contains("[1/1] wheel × 1000 arm 100%"), "output: \(output.stdout)")
        #expect(output.stdout.contains("[1/1] wheel × 1000 cancel 100%"), "output: \(output.stdout)")
    }

    /// In durations `m` is minutes; in counts a lowercase `m` is rejected with the spelling that means a million.
    @Test func aLowercaseMInCountsIsRejectedNamingTheMillionSpelling() async throws {
        let output = try await TempoBinary.run(["bench", "--counts", "1m"])
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains("'1m'"), "stderr: \(output.stderr)")
        #expect(output.stderr.contains("1M"), "stderr: \(output.stderr)")
    }

    @Test func benchPrintsJSON() async throws {
        let output = try await TempoBinary.run([
            "bench", "--counts", "1k", "2K", "--subjects", "wheel", "dispatch-source", "--json",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        let results = try #require(object?["results"] as? [[String: Any]])
        #expect(results.map { $0["timers"] as? Int } == [1000, 1000, 2000, 2000])
        #expect(Set(results.compactMap { $0["subject"] as? String }) == ["wheel", "dispatch-source"])
        for result in results {
            #expect((result["arm_ns_per_op"] as? Double ?? -1) >= 0)
        }
        #expect(results.first { $0["subject"] as? String == "dispatch-source" }?["arm_ratio"] as? Double == 1)
    }
}
