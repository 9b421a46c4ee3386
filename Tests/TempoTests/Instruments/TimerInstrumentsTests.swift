import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// The instrument hook on virtual time: what a tick reports, labels, adding and removing instruments.
@Suite struct TimerInstrumentsTests {
    @Test func anAddedInstrumentSeesEachTickWithTheLatenessAndMissedCountTheHandlerSaw() throws {
        let clock = VirtualClock()
        let instrument = RecordingInstrument(prefix: "instruments-ticks")
        let registration = try TimerInstruments.add(instrument)
        defer { TimerInstruments.remove(registration) }
        let seen = TempoMutex<[TimerTick]>([])
        let timer = try TempoTimer(.every(.seconds(1)).labeled("instruments-ticks"), scheduler: clock) { tick in
            seen.withLock { $0.append(tick) }
        }.start()
        defer { timer.cancel() }
        clock.advance(by: .milliseconds(999))
        #expect(instrument.ticks.isEmpty)
        clock.advance(by: .milliseconds(1))
        clock.advance(by: .seconds(2))
        let ticks = instrument.ticks
        #expect(ticks.map(\.tick) == seen.withLock { $0 })
        #expect(ticks.map(\.tick.index) == [1, 2, 3])
        #expect(ticks.allSatisfy { $0.label?.name == "instruments-ticks" && $0.lane == .scheduler })
        #expect(ticks.allSatisfy { $0.clock == .monotonic })
        // Handler durations are read on the scheduler's clock: a virtual clock that nobody moves reads zero.
        #expect(instrument.handlers.map(\.index) == [1, 2, 3])
        #expect(instrument.handlers.allSatisfy { $0.duration == .zero })
    }

    @Test func aRemovedInstrumentSeesNothingMore() throws {
        let clock = VirtualClock()
        let instrument = RecordingInstrument(prefix: "instruments-removed")
        let registration = try TimerInstruments.add(instrument)
        let timer = try TempoTimer(.every(.seconds(1)).labeled("instruments-removed"), scheduler: clock) { _ in }
            .start()
        defer { timer.cancel() }
        clock.advance(by: .seconds(1))
        #expect(instrument.ticks.count == 1)
        #expect(TimerInstruments.remove(registration))
        #expect(!TimerInstruments.remove(registration))
        clock.advance(by: .seconds(3))
        #expect(instrument.ticks.count == 1)
    }

    @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(Int64.max)])
    func aStallThresholdOutOfRangeIsRejectedNamingTheValue(threshold: Duration) {
        let instrument = RecordingInstrument(prefix: "never", stallThreshold: threshold)
        #expect {
            try TimerInstruments.add(instrument)
        } throws: { error in
            guard let error = error as? TempoError else { return false }
            return error.code == .invalidInterval && error.value == threshold.exactDescription
        }
    }

    @Test func aLabelNamesItsSiteAndSurvivesTheTimersScheduleRoundTrip() throws {
        let schedule = TimerSchedule.every(.seconds(1)).labeled("poll")
        let label = try #require(schedule.label)
        #expect(label.name == "poll")
        #expect(label.fileID == #fileID)
        #expect(label.description == "poll (\(#fileID):\(label.line))")
        #expect(TimerLabel("", fileID: "App/A.swift", line: 3).description == "App/A.swift:3")
        let timer = try TempoTimer(schedule, scheduler: VirtualClock())
        #expect(timer.label == label)
        #expect(timer.schedule.label == label)
        #expect(try TempoTimer(.every(.seconds(1)), scheduler: VirtualClock()).label == nil)
    }

    @Test func aStallEventDescribesTheCulpritWhatItHeldAndTheTimersThatWaited() {
        let event = TimerInstruments.StallEvent(
            label: TimerLabel("slow", fileID: "App/Slow.swift", line: 7), clock: .monotonic, lane: .driverThread,
            duration: .milliseconds(200), delayed: 99)
        #expect(
            event.description
                == "slow (App/Slow.swift:7) held the monotonic driver thread for 0.2 seconds; 99 timers waited")
    }
}
