import ArgumentParser
import Dispatch
import Tempo

#if canImport(Glibc)
import Glibc
#endif

/// `tempo countdown`: a terminal countdown whose remaining time always comes from the clock.
struct CountdownCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "countdown",
        abstract: "Count down DURATION with a progress bar that stays right across stop and continue.",
        discussion: """
            The end is fixed when the countdown starts, on the continuous clock (which keeps counting \
            while the process is stopped and while the machine sleeps). Every redraw computes the time \
            left from that clock, so after Ctrl-Z and fg (SIGSTOP/SIGCONT) the bar jumps to the right \
            place, and a countdown that ran out while stopped finishes at once. On a terminal the bar \
            is redrawn in place; otherwise only the start, any resume and the end are printed.
            """
    )

    @Argument(help: "How long to count down, like 90s, 2m or 1h30m.")
    var duration: String

    @Option(name: .long, parsing: .unconditional, help: "How often to redraw the bar, like 100ms.")
    var refresh: String = "100ms"

    @Option(name: .long, parsing: .unconditional, help: "Width of the progress bar in characters.")
    var width: Int = 40

    mutating func validate() throws {
        _ = try parseDuration(duration, option: "<duration>")
        _ = try parseDuration(refresh, option: "--refresh")
        guard (1...500).contains(width) else {
            throw ValidationError("--width must be between 1 and 500, got \(width)")
        }
    }

    func run() throws {
        let total = try parseDuration(duration, option: "<duration>")
        let refresh = try parseDuration(refresh, option: "--refresh")
        let display = CountdownDisplay(total: total, width: width, interactive: isatty(1) != 0)
        let done = DispatchSemaphore(value: 0)
        do {
            // `start()` runs the one-shot until it fires.
            try TempoTimer(.at(TimerDeadline(display.end, clock: .continuous))) { _ in done.signal() }.start()
        } catch {
            // The clock's range ends about 146 years from its origin (the machine's boot).
            throw usageError(
                "<duration>: '\(duration)' is too long: its end lies beyond the range of the continuous clock")
        }
        let redraw = try TempoTimer(.every(min(refresh, total), clock: .continuous)) { _ in display.draw() }
        signal(SIGCONT, SIG_IGN)
        let resumed = DispatchSource.makeSignalSource(signal: SIGCONT, queue: .global())
        resumed.setEventHandler { display.resumed() }
        resumed.resume()
        display.begin()
        redraw.start()
        done.wait()
        redraw.cancel()
        resumed.cancel()
        display.end(finished: true)
    }
}
