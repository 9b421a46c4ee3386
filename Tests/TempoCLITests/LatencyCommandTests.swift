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
}
