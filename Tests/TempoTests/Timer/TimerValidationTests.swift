import Tempo
import TempoTesting
import Testing

@Suite struct TimerValidationTests {
    static let badIntervals: [Duration] = [
        .zero, .nanoseconds(-1), .seconds(-5), Duration(attoseconds: 1), .nanoseconds(Int64.max) + .nanoseconds(1),
        .seconds(Int64.max),
    ]

    @Test(arguments: badIntervals)
    func invalidIntervalsAreRejectedWithTheirValue(interval: Duration) {
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.every(interval), scheduler: VirtualClock()) { _ in }
        }
        #expect(error?.code == .invalidInterval)
        #expect(error?.value == interval.exactDescription)
        #expect(error?.description.contains(interval.exactDescription) == true)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 0, -0.5, 1e300])
    func invalidSecondsAreRejected(seconds: Double) {
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.every(seconds: seconds), scheduler: VirtualClock())
        }
        #expect(error?.code == .invalidInterval)
        #expect(error?.value == "\(seconds)")
    }

    @Test(arguments: [0, -1, Int.min])
    func repeatCountsBelowOneAreRejected(count: Int) {
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.every(.seconds(1), repeats: .times(count)), scheduler: VirtualClock())
        }
        #expect(error?.code == .invalidCount)
        #expect(error?.value == "\(count)")
    }

    @Test(arguments: [Duration.nanoseconds(-1), .seconds(Int64.max)])
    func invalidLeewaysAreRejected(leeway: Duration) throws {
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.every(.seconds(1), leeway: leeway), scheduler: VirtualClock())
        }
        #expect(error?.code == .invalidLeeway)
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: VirtualClock())
        #expect(throws: TempoError.self) { try timer.setLeeway(leeway) }
        #expect(timer.leeway == .zero)
    }

    @Test func negativeFirstDelayIsRejected() {
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.every(.seconds(1), first: .after(.seconds(-1))), scheduler: VirtualClock())
        }
        #expect(error?.code == .invalidInterval)
    }

    @Test func resetWithABadIntervalThrowsAndLeavesTheTimerAlone() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.start()
        #expect(throws: TempoError.self) { try timer.reset(interval: .zero) }
        #expect(timer.schedule.interval == .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1])
    }

    @Test func exactSecondsConversionKeepsSubMillisecondPrecision() throws {
        #expect(try TempoError.interval(seconds: 0.5) == .milliseconds(500))
        #expect(try TempoError.interval(seconds: 0.000_001) == .microseconds(1))
        #expect(try TempoError.interval(seconds: 1.25) == .milliseconds(1_250))
    }
}
