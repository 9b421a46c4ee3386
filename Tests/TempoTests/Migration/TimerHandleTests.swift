import Tempo
import TempoTesting
import Testing

/// Trap 3 of issue #10: "release cancels" is a first-class choice; "running timers keep running" stays the default.
@Suite struct TimerHandleTests {
    @Test func releasingTheHandleCancelsTheTimerAndItsDeadline() throws {
        let clock = VirtualClock()
        let log = TickLog()
        var handle: TimerHandle? = TimerHandle(
            try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record).start())
        #expect(clock.pendingCount == 1)
        clock.advance(by: .seconds(1))
        #expect(log.count == 1)
        withExtendedLifetime(handle) {}
        handle = nil
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(10))
        #expect(log.count == 1)
    }

    @Test func anOwnerWithoutDeinitStopsItsTimerWhenReleased() throws {
        final class Poller: Sendable {
            let timer: TimerHandle
            init(clock: VirtualClock, log: TickLog) throws {
                timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record).start().cancelledOnRelease()
            }
        }
        let clock = VirtualClock()
        let log = TickLog()
        let timerBox = WeakBox<TempoTimer>()
        do {
            let poller = try Poller(clock: clock, log: log)
            timerBox.object = poller.timer.timer
            clock.advance(by: .milliseconds(999))
        }
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(5))
        #expect(log.count == 0)
        #expect(timerBox.object == nil)
    }

    @Test func withoutAHandleARunningTimerKeepsRunningWhenReleased() throws {
        let clock = VirtualClock()
        let log = TickLog()
        do {
            _ = try TempoTimer(.every(.seconds(1), repeats: .times(2)), scheduler: clock, log.record).start()
        }
        clock.advance(by: .seconds(2))
        #expect(log.indices == [1, 2])
    }

    @Test func handlesHaveIdentity() throws {
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: VirtualClock())
        let a = TimerHandle(timer)
        let b = TimerHandle(timer)
        #expect(a == a)
        #expect(a != b)
        #expect(Set([a, a, b]).count == 2)
    }
}
