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
}
