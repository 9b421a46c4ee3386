import Testing

/// Messages about bad values in the user's words, with sysexits' usage status (64).
@Suite struct CLIMessageTests {
    /// A negative value is named and said to be negative, not reported as a missing argument (ArgumentParser reads
    /// `-5ms` as an unknown option).
    @Test(arguments: [
        (["every", "-5ms", "--", "true"], "'-5ms'"), (["countdown", "-5s"], "'-5s'"),
        (["tick", "--count", "-1"], "--count: '-1'"), (["bench", "--counts", "-5"], "--counts: '-5'"),
        (["every", "1s", "--count", "-1", "--", "true"], "--count: '-1'"),
        (["next", "@daily", "--count", "-2"], "'-2'"),
        (["latency", "--rounds", "-3"], "--rounds: '-3'"),
    ])
    func aNegativeValueIsNamedAndMustBePositive(arguments: [String], named: String) async throws {
        let output = try await TempoBinary.run(arguments)
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains(named), "stderr: \(output.stderr)")
        #expect(output.stderr.contains("must be positive"), "stderr: \(output.stderr)")
        #expect(!output.stderr.lowercased().contains("missing"), "stderr: \(output.stderr)")
    }

    /// No internal case name (`invalidCron`, `unknownTimeZone`, `invalidInstant`, `invalidDate`) reaches the user,
    /// and input the plans or the clock cannot represent is bad usage (64), not a failure (1).
    @Test(arguments: [
        (["next", "61 * * * *"], "61"), (["next", "@daily", "--tz", "Mars/Olympus"], "Mars/Olympus"),
        (["every", "--cron", "61 * * * *", "--", "true"], "61"), (["countdown", "100000d"], "'100000d'"),
        (["next", "@daily", "--after", "9999-12-31T00:00:00Z"], "9999"),
    ])
    func messagesUseWordsAndBadValuesExitWith64(arguments: [String], named: String) async throws {
        let output = try await TempoBinary.run(arguments)
        #expect(output.status == 64, "stderr: \(output.stderr)")
        #expect(output.stderr.contains(named), "stderr: \(output.stderr)")
        for internalName in ["invalidCron", "unknownTimeZone", "invalidInstant", "invalidDate", "invalidPlanText"] {
            #expect(!output.stderr.contains(internalName), "stderr: \(output.stderr)")
        }
        #expect(output.stdout.isEmpty)
    }
}
