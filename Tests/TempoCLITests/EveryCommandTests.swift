import Foundation
import Testing

@Suite struct EveryCommandTests {
    @Test func runsTheCommandCountTimesAndPassesOutputThrough() async throws {
        // Burst: on a loaded machine a run may outlast the interval, and coalescing would fold the next tick.
        let output = try await TempoBinary.run(["every", "50ms", "--count", "3", "--late", "burst", "--", "echo", "hi"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout == "hi\nhi\nhi\n")
        #expect(output.stderr.contains("3 runs"))
        #expect(output.stderr.contains("0 failed"))
    }

    @Test func argumentsAreNotInterpretedByAShell() async throws {
        let output = try await TempoBinary.run(["every", "50ms", "--count", "1", "--", "echo", "$HOME", "a;b"])
        #expect(output.stdout == "$HOME a;b\n")
    }

    @Test func shellFlagRunsThroughBinSh() async throws {
        let output = try await TempoBinary.run([
            "every", "50ms", "--count", "1", "--shell", "--", "echo", "a", "&&", "echo", "b",
        ])
        #expect(output.status == 0)
        #expect(output.stdout == "a\nb\n")
    }

    @Test func nonZeroExitsAreReportedCountedAndFailTheRun() async throws {
        // Burst: with the default coalesce, a process starved past both ticks (seen once under AddressSanitizer,
        // beside the rest of the suite) gets one tick that stands for both, and so runs the command once.
        let output = try await TempoBinary.run([
            "every", "50ms", "--count", "2", "--late", "burst", "--", "sh", "-c", "exit 3",
        ])
        #expect(output.status == 1)
        #expect(output.stderr.contains("run 1 exited with status 3"))
        #expect(output.stderr.contains("run 2 exited with status 3"))
        #expect(output.stderr.contains("2 runs"))
        #expect(output.stderr.contains("2 failed"))
    }

    /// Ticks at 0, 100, 200, 300 ms; each run takes 250 ms. Skip drops the ticks at 100 and 200 ms.
    @Test func skipDropsTicksThatArriveWhileARunIsGoing() async throws {
        let output = try await TempoBinary.run([
            "every", "100ms", "--count", "4", "--late", "skip", "--", "sleep", "0.25",
        ])
        #expect(output.status == 0)
        // On a slow machine more ticks may overlap, never fewer; on a loaded one the timer itself may already have
        // folded a tick it could not deliver in time ("missed by the timer"). Either way, not every tick ran.
        #expect(
            output.stderr.contains("skipped while a run was going") || output.stderr.contains("missed by the timer"),
            "stderr: \(output.stderr)")
        #expect(!output.stderr.contains("4 runs"), "stderr: \(output.stderr)")
    }

    /// Ticks at 0, 100, 200, 300 ms; each run takes 250 ms. Coalesce folds the ticks at 100 and 200 ms into
    /// one run that starts when the first ends, so fewer runs than ticks.
    @Test func coalesceFoldsTicksThatArriveWhileARunIsGoing() async throws {
        let output = try await TempoBinary.run(["every", "100ms", "--count", "4", "--", "sleep", "0.25"])
        #expect(output.status == 0)
        // On a loaded machine the timer may fold a late tick before the gate sees it ("missed by the timer").
        #expect(
            output.stderr.contains("coalesced while a run was going") || output.stderr.contains("missed by the timer"),
            "stderr: \(output.stderr)")
        #expect(!output.stderr.contains("4 runs"), "stderr: \(output.stderr)")
    }

    /// Burst owes every overlapping tick a run: four ticks, four runs, however long each takes.
    @Test func burstRunsOncePerTick() async throws {
        let output = try await TempoBinary.run([
            "every", "50ms", "--count", "4", "--late", "burst", "--", "sleep", "0.12",
        ])
        #expect(output.status == 0)
        #expect(output.stderr.contains("4 runs"), "stderr: \(output.stderr)")
    }
}
