import Tempo
import TempoTesting
import Testing

/// Every public entry point with every invalid value: each throws a `TempoError` with the right code,
/// carrying the bad value in `value` and naming it in its message. (The common cases of
/// `init(every:)` are in `TimerValidationTests`.)
@Suite struct BadInputTests {
    @Test(arguments: BadInput.all)
    func invalidValuesThrowATypedErrorNamingTheValue(input: BadInput) {
        var thrown: TempoError?
        do {
            try input.call()
        } catch let error as TempoError {
            thrown = error
        } catch {
            Issue.record("\(input.name) threw an untyped error: \(error)")
        }
        guard let thrown else {
            Issue.record("\(input.name) did not throw")
            return
        }
        #expect(thrown.code == input.code, "\(input.name): \(thrown)")
        #expect(thrown.value == input.value, "\(input.name): \(thrown)")
        // (`String.contains("")` is false: an empty text is named as `''` in the message instead.)
        #expect(
            thrown.message.contains(input.value.isEmpty ? "''" : input.value),
            "\(input.name): message does not name the value: \(thrown)"
        )
        #expect(thrown.description.hasPrefix("\(input.code): "))
    }

    @Test func theTableCoversEveryEntryPoint() {
        let names = Set(BadInput.all.map { $0.name.prefix { $0 != " " && $0 != "(" } })
        for entryPoint in [
            "init", "once", "reset", "setLeeway", "DurationParser.parse",
            "TempoError.validateInterval", "TempoError.validateLeeway", "TempoError.interval", "TimerRegistry.schedule",
            "TimerRegistry<[Int]>.schedule", "SharedTicker", "SharedTicker.subscribe", "Countdown", "Countdown.add",
            "Debouncer", "Debouncer.setDelay", "Throttler", "TimingWheel", "TimingWheel.schedule",
            "TimingWheel.reschedule",
        ] {
            #expect(names.contains(Substring(entryPoint)), "no bad-input row for \(entryPoint)")
        }
    }
}
