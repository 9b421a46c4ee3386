import Tempo
import TempoTesting
import Testing

/// Trap 8 of issue #10: a throttler without an `edge:` behaves like Repeat's: leading edge, no extra trailing run.
@Suite struct ThrottlerDefaultTests {
    @Test func theDefaultEdgeIsLeading() throws {
        let throttler = try Throttler<Int>(every: .seconds(1), scheduler: VirtualClock()) { _ in }
        #expect(throttler.edge == .leading)
        let void = try Throttler(every: .seconds(1), scheduler: VirtualClock()) {}
        #expect(void.edge == .leading)
    }

    @Test func aMigratedThrottlerRunsOncePerBurstAndNeverAtTheWindowsEnd() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let throttler = try Throttler<Int>(every: .seconds(1), scheduler: clock, action: log.record)
        #expect(throttler.call(0) == .ranNow)
        clock.advance(by: .milliseconds(300))
        #expect(throttler.call(300) == .dropped)
        clock.advance(by: .milliseconds(300))
        #expect(throttler.call(600) == .dropped)
        clock.advance(by: .seconds(5))
        #expect(log.all == [0])  // `.both` would also have run 600 at 1 s
        #expect(throttler.call(5_600) == .ranNow)
        #expect(log.all == [0, 5_600])
    }
}
