import ArgumentParser

@main
struct TempoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tempo",
        abstract: "Measure timer punctuality and run things on a drift-free schedule.",
        subcommands: [
            LatencyCommand.self, BenchCommand.self, EveryCommand.self, CountdownCommand.self, TickCommand.self,
            NextCommand.self,
        ]
    )
}
