import Testing

/// Bad input on every subcommand is a usage error: exit status 64 and a message naming the value.
@Suite struct CLIValidationTests {
    static let badInvocations: [(arguments: [String], named: String)] = [
        (["latency", "--period", "1xs"], "'1xs'"),
        (["latency", "--duration", "0s"], "'0s'"),
        (["latency", "--period", "10ms", "--duration", "5ms"], "5"),
        (["latency", "--backends", "sundial"], "'sundial'"),
        (["latency", "--stall-threshold", "0s"], "'0s'"),
        (["latency", "--stall-threshold", "soon"], "'soon'"),
        (["latency", "--stall-threshold", "10ms", "--block-once", "2m"], "'2m'"),
        (["latency", "--block-once", "10ms"], "--stall-threshold"),
        (["bench", "--counts", "0"], "'0'"),
        (["bench", "--subjects", "hourglass"], "'hourglass'"),
        (["every", "soon", "--", "echo"], "'soon'"),
        (["every", "1s", "--count", "0", "--", "echo"], "0"),
        (["every", "1s", "--late", "sometimes", "--", "echo"], "'sometimes'"),
        (["every", "1s"], "COMMAND"),
        (["countdown", "0s"], "'0s'"),
        (["countdown", "10"], "'10'"),
        (["tick", "--every", "fast"], "'fast'"),
        (["tick", "--count", "0"], "0"),
        (["metronome"], "metronome"),
    ]

    @Test(arguments: badInvocations)
    func badInputExitsWithUsageStatusAndNamesTheValue(arguments: [String], named: String) async throws {
        let output = try await TempoBinary.run(arguments)
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains(named), "stderr: \(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test(arguments: [[], ["latency"], ["bench"], ["every"], ["countdown"], ["tick"]])
    func everySubcommandHasHelp(subcommand: [String]) async throws {
        let output = try await TempoBinary.run(subcommand + ["--help"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("USAGE:"))
        #expect(output.stdout.contains("--help"))
    }
}
