import Tempo
import Testing

@Suite struct MeasureValidationTests {
    @Test func slotCountIsDurationOverPeriodRoundedDown() throws {
        #expect(try LatencyProbe.slotCount(period: .milliseconds(1), duration: .seconds(5)) == 5000)
        #expect(try LatencyProbe.slotCount(period: .milliseconds(3), duration: .milliseconds(10)) == 3)
        #expect(try LatencyProbe.slotCount(period: .microseconds(10), duration: .microseconds(10)) == 1)
    }

    @Test func aDurationShorterThanOnePeriodIsRejectedWithItsValue() {
        let error = #expect(throws: TempoError.self) {
            try LatencyProbe.slotCount(period: .milliseconds(10), duration: .milliseconds(5))
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.value == "\(Duration.milliseconds(5))")
    }

    @Test(arguments: [Duration.zero, .nanoseconds(-1), .microseconds(9)])
    func periodsBelowTenMicrosecondsAreRejected(period: Duration) {
        let error = #expect(throws: TempoError.self) {
            try LatencyProbe.slotCount(period: period, duration: .seconds(1))
        }
        #expect(error?.code == .invalidInterval)
        // Durations rejected by `TempoError.validateInterval` are named exactly; the 10 µs floor names the value as
        // Swift prints it.
        #expect([period.exactDescription, "\(period)"].contains(error?.value ?? ""))
    }

    @Test(arguments: [0, -1, 10_000_001])
    func benchCountsOutOfRangeAreRejected(count: Int) async {
        let error = await #expect(throws: TempoError.self) {
            try await MassTimerBench.run(.dispatchSource, count: count)
        }
        #expect(error?.code == .invalidCount)
        #expect(error?.value == "\(count)")
    }

    @Test func aShortFloorMeasurementRecordsEverySlotOrCountsItMissed() throws {
        let samples = try LatencyProbe.measure(.floor, every: .milliseconds(2), for: .milliseconds(40))
        #expect(samples.slots == 20)
        #expect(samples.ticks + samples.missed == 20)
        #expect(samples.ticks >= 1)
    }
}
