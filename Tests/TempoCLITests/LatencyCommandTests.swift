import Foundation
import Testing

@Suite struct LatencyCommandTests {
    @Test func jsonReportsEveryBackendWithOrderedPercentilesAndWritesTheSVG() async throws {
        let svg = FileManager.default.temporaryDirectory.appendingPathComponent("tempo-latency-\(getpid()).svg")
        defer { try? FileManager.default.removeItem(at: svg) }
        let output = try await TempoBinary.run(["latency", "--duration", "250ms", "--json", "--svg", svg.path])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
        let backends = try #require(object?["backends"] as? [[String: Any]])
        #expect(
            backends.map { $0["backend"] as? String } == [
                "floor", "dispatch", "tempo-default", "tempo-precise", "wheel", "dispatch-oneshot", "tempo-oneshot",
            ])
        for backend in backends {
            let ticks = try #require(backend["ticks"] as? Int)
            #expect(ticks >= 1 && ticks <= 250)
            let p50 = try #require(backend["p50_us"] as? Double)
            let p99 = try #require(backend["p99_us"] as? Double)
            let max = try #require(backend["max_us"] as? Double)
            let min = try #require(backend["min_us"] as? Double)
            #expect(min >= 0 && min <= p50 && p50 <= p99 && p99 <= max)
            #expect(backend["early"] as? Int == 0)
        }
        #expect(backends.first?["p50_ratio_to_floor"] as? Double == 1)
        let plot = try String(contentsOf: svg, encoding: .utf8)
        #expect(plot.hasPrefix("<svg"))
        #expect(plot.components(separatedBy: "<polyline").count - 1 == backends.count)
    }

    @Test func csvHasAHeaderAndOneLinePerSelectedBackendFloorFirst() async throws {
        let output = try await TempoBinary.run([
            "latency", "--duration", "200ms", "--csv", "--backends", "tempo-precise",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("backend,ticks,missed,early,p50_us") == true)
        #expect(lines.dropFirst().map { $0.split(separator: ",").first } == ["floor", "tempo-precise"])
    }

    @Test func tableShowsRatiosAndAHistogram() async throws {
        let output = try await TempoBinary.run([
            "latency", "--duration", "100ms", "--period", "2ms", "--backends", "dispatch",
        ])
        #expect(output.status == 0)
        #expect(output.stdout.contains("p50/floor"))
        #expect(output.stdout.contains("lateness distribution"))
        #expect(output.stdout.contains("dispatch"))
    }

    @Test func aStallThresholdPrintsAStallReportNamingTheCulpritItsDurationAndTheCount() async throws {
        let output = try await TempoBinary.run([
            "latency", "--duration", "100ms", "--backends", "tempo-precise", "--no-progress",
            "--stall-threshold", "50ms", "--block-once", "200ms",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("stalls of 50ms or longer: ") }, "\(output.stdout)")
        let count = try #require(Int(header.dropFirst("stalls of 50ms or longer: ".count).prefix { $0.isNumber }))
        #expect(count >= 1)
        let longest = try #require(lines.first { $0.hasPrefix("  longest: ") })
        // The blocked handler held the thread for at least 200 ms (never less; no upper bound on a loaded machine).
        #expect(longest.contains("held the monotonic driver thread for"))
        let culprits = try #require(lines.first { $0.hasPrefix("  culprits: ") })
        #expect(culprits.contains("latency-block (tempo/StallReport.swift:"))
        #expect(lines.contains { $0.hasPrefix("  delayed: ") && $0.hasSuffix("timers waited behind a stall, in all") })
        let seconds = try #require(
            longest.split(separator: " for ").last?.split(separator: " ").first.flatMap { Double($0) })
        #expect(seconds >= 0.2)
    }

    @Test func withJSONTheStallReportGoesToStandardErrorAndTheOutputStaysJSON() async throws {
        let output = try await TempoBinary.run([
            "latency", "--duration", "20ms", "--backends", "floor", "--json", "--stall-threshold", "1s",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) is [String: Any])
        #expect(output.stderr.contains("stalls of 1s or longer: "))
    }
}
