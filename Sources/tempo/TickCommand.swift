import ArgumentParser
import Dispatch
import Tempo

/// `tempo tick`: runs a real Tempo timer and prints each tick with how late it ran.
struct TickCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tick",
        abstract: "Start a Tempo timer and print each tick with its lateness in microseconds."
    )

    // Unconditional: `--every -5ms` takes `-5ms` as the value (rejected as not a duration, naming it) instead of
    // reading it as an unknown option and reporting a missing value.
    @Option(name: .long, parsing: .unconditional, help: "The interval, like 250ms, 1.5s, 100us, 1h30m.")
    var every: String = "250ms"

    @Option(name: .long, parsing: .unconditional, help: "How many ticks to print.")
    var count: Int = 8

    @Option(name: .long, help: "The clock: monotonic, continuous or wall.")
    var clock: String = "monotonic"

    @Flag(name: .long, help: "Run handlers on the timer's driver thread instead of a private queue.")
    var immediate = false

    mutating func validate() throws {
        _ = try parsedInterval()
        guard count >= 1 else { throw ValidationError("--count must be at least 1, got \(count)") }
        _ = try parsedClock()
    }

    func parsedInterval() throws -> Duration {
        do {
            return try DurationParser.parse(every)
        } catch {
            throw ValidationError("--every: \(error.message)")
        }
    }

    func parsedClock() throws -> TimerClock {
        guard let match = TimerClock.allCases.first(where: { $0.description == clock }) else {
            throw ValidationError("--clock must be monotonic, continuous or wall, got '\(clock)'")
        }
        return match
    }

    func run() throws {
        let interval = try parsedInterval()
        let clock = try parsedClock()
        let done = DispatchSemaphore(value: 0)
        let stats = LatenessStats()
        let total = count
        let timer = try TempoTimer(
            .every(interval, repeats: .times(total), delivery: immediate ? .immediate : .privateQueue, clock: clock)
        ) { tick in
            let micros = tick.lateness.microseconds
            stats.add(micros, missed: tick.missed)
            output("tick \(tick.index)/\(total)  late \(formatMicros(micros)) µs  missed \(tick.missed)")
            if tick.index == total { done.signal() }
        }
        output(
            "tempo tick: every \(formatDuration(interval)) x \(total) on the \(clock) clock\(immediate ? " (immediate delivery)" : "")"
        )
        timer.start()
        done.wait()
        output(stats.summary(count: total))
    }
}
