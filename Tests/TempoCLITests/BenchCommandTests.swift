import Foundation
import Testing

@Suite struct BenchCommandTests {
    @Test func printsOneRowPerSubjectWithRatiosToDispatch() async throws {
        let output = try await TempoBinary.run(["bench", "--counts", "1k"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        let rows = output.stdout.split(separator: "\n").filter {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("1000 ")
        }
        #expect(rows.count == 4)
        #expect(rows.contains { $0.contains("tempo-timer") })
        #expect(rows.contains { $0.contains("task-sleep") })
        #expect(rows.contains { $0.contains("wheel") })
        #expect(rows.contains { $0.contains("dispatch-source") && $0.contains("1.0x") })
    }

    @Test func roundsPrintMediansWithTheRangeOfTheArmAndCancelRatio() async throws {
        let output = try await TempoBinary.run([
            "bench", "--counts", "1k", "--subjects", "tempo-timer", "dispatch-source", "--rounds", "2",
        ])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.contains("2 rounds, subject order reversed every other round"))
        #expect(output.stdout.contains("bytes, later rounds"))
        let rows = output.stdout.split(separator: "\n").filter {
            $0.trimmingCharacters(in: .whitespaces).hasPrefix("1000 ")
        }
        #expect(rows.count == 2)
        #expect(rows.contains { $0.contains("dispatch-source") && $0.contains("1.0x (1.0x–1.0x)") })
        #expect(rows.contains { $0.contains("tempo-timer") && $0.contains("x–") })
    }

    @Test func zeroRoundsAreRejectedWithTheValue() async throws {
        let output = try await TempoBinary.run(["bench", "--counts", "1k", "--rounds", "0"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("--rounds: '0'"))
    }
}
