import Tempo
import TempoTesting
import Testing

/// The toolkit types that take a ``TimerSchedule`` hand its label to the instruments.
@Suite struct LabelPassThroughTests {
    @Test func aRegistryKeysTimerReportsItsTicksUnderTheSchedulesLabel() throws {
        let clock = VirtualClock()
        let instrument = RecordingInstrument(prefix: "pass-registry")
        let registration = try TimerInstruments.add(instrument)
        defer { TimerInstruments.remove(registration) }
        let registry = TimerRegistry<String>(scheduler: clock)
        try registry.schedule("user-7", .every(.seconds(1)).labeled("pass-registry")) { _ in }
        defer { registry.cancelAll() }
        clock.advance(by: .milliseconds(999))
        #expect(instrument.ticks.isEmpty)
        clock.advance(by: .seconds(2) + .milliseconds(1))
        #expect(instrument.ticks.map(\.tick.index) == [1, 2, 3])
        #expect(instrument.ticks.allSatisfy { $0.label?.name == "pass-registry" })
    }

    @Test func aSharedTickersTimerReportsItsTicksUnderTheSchedulesLabel() throws {
        let clock = VirtualClock()
        let instrument = RecordingInstrument(prefix: "pass-ticker")
        let registration = try TimerInstruments.add(instrument)
        defer { TimerInstruments.remove(registration) }
        let ticker = try SharedTicker(.every(.seconds(1)).labeled("pass-ticker"), scheduler: clock)
        let subscription = try ticker.subscribe { _ in }
        defer { subscription.cancel() }
        clock.advance(by: .seconds(2))
        #expect(instrument.ticks.map(\.tick.index) == [1, 2])
        #expect(instrument.handlers.allSatisfy { $0.label?.name == "pass-ticker" })
    }
}
