import ArgumentParser

@main
struct TempoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tempo",
        abstract: "Measure timer punctuality and run things on a drift-free schedule.",
        subcommands: [TickCommand.self]
    )
}
