import Tempo
import TempoTesting
import Testing

/// Trap 6 of issue #10: one rule for a bad leeway, a typed error, no trapping setter.
@Suite struct LeewayRuleTests {
    @Test func leewayIsReadOnlySoItCannotTrap() {
        #expect(!((\TempoTimer.leeway as AnyKeyPath) is ReferenceWritableKeyPath<TempoTimer, Duration>))
    }

    @Test func setLeewayThrowsATypedErrorAndKeepsTheOldValue() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), leeway: .milliseconds(5)), scheduler: clock, log.record).start()
        for bad in [Duration.nanoseconds(-1), TempoError.maximumDuration + .nanoseconds(1)] {
            let error = #expect(throws: TempoError.self) { try timer.setLeeway(bad) }
            #expect(error?.code == .invalidLeeway)
            #expect(error?.value == bad.exactDescription)
        }
        #expect(timer.leeway == .milliseconds(5))
        try timer.setLeeway(.milliseconds(20))
        #expect(timer.leeway == .milliseconds(20))
        clock.advance(by: .seconds(1))
        #expect(log.count == 1)
        timer.cancel()
    }
}
