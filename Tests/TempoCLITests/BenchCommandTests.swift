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

    @Test func threadsCompareTheSharedSchedulerWithOneThreadAndTheControl() async throws {
        let output = try await TempoBinary.run(["bench", "--threads", "2", "--counts", "100", "--passes", "2"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.contains("tempo bench --threads 2: 100 timers per thread, 2 passes"))
        for row in [
            "tempo-timer, 1 thread", "tempo-timer, N threads, shared scheduler",
            "control: tempo-timer, N threads, a scheduler each", "created in the pass, 1 thread",
            "created in the pass, N threads, shared scheduler",
            "control: created in the pass, N threads, a scheduler each", "timing-wheel, 1 thread",
            "sharded-wheel, 1 thread", "sharded-wheel, N threads",
        ] {
            #expect(output.stdout.contains(row), "no row \(row)")
        }
        #expect(output.stdout.contains("sharded-wheel / timing-wheel, one thread, ns per pair in the fastest pass: "))
        // Issue #44: the median pass beside the fastest, in the table and in the verdict on the 1.6x target.
        #expect(output.stdout.contains("fastest: pairs/µs") && output.stdout.contains("median: pairs/µs"))
        let verdicts = output.stdout.split(separator: "\n").filter { $0.contains(" pass: shared scheduler ") }
        #expect(
            verdicts.map { $0.prefix(while: { $0 != ":" }) }
                == ["fastest pass", "median pass", "created in the pass, median pass"], "\(output.stdout)")
        // The header says whether the threads were bound (ArmScalingTests checks the binding itself).
        #expect(
            output.stdout.contains("each thread bound to a processor of its own\n")
                || output.stdout.contains("threads not bound to processors"))
    }

    @Test func leewayPrintsWakeupsPerSecondOfEachSubjectAgainstTheIdeal() async throws {
        let output = try await TempoBinary.run(["bench", "--leeway", "100ms", "--counts", "100"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.contains("tempo bench --leeway 100ms: 100 timers every 1 s"))
        for subject in ["tempo-timer", "tempo-immediate", "dispatch-source"] {
            let row = output.stdout.split(separator: "\n").first { $0.hasPrefix(subject + " ") }
            let cells = row?.split(separator: " ") ?? []
            #expect(cells.count == 4, "row of \(subject): \(row ?? "none")")
            #expect(cells.last == "10", "the ideal for 100 ms of leeway is 10 wakeups a second: \(row ?? "none")")
        }
    }

    @Test(arguments: [
        (["--threads", "1"], "--threads: '1'"),
        (["--threads", "2", "--passes", "0"], "--passes: '0'"),
        (["--leeway", "2s"], "--leeway: '2s'"),
        (["--leeway", "soon"], "--leeway:"),
        (["--leeway", "10ms", "--threads", "2"], "--threads and --leeway"),
        (["--leeway", "10ms", "--json"], "--json: not available"),
        (["--leeway", "10ms", "--counts", "200k"], "--counts: '200000'"),
        (["--threads", "2", "--counts", "2M"], "--counts: '2000000'"),
    ])
    func badMeasurementOptionsAreRejectedWithTheValue(arguments: [String], message: String) async throws {
        let output = try await TempoBinary.run(["bench"] + arguments)
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains(message), "stderr: \(output.stderr)")
    }
}
