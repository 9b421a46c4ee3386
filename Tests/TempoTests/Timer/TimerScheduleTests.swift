import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Collects ticks from handlers (which run on other queues) for assertions.
final class TickLog: Sendable {
    private let ticks = TempoMutex<[TimerTick]>([])

    var all: [TimerTick] { ticks.withLock { $0 } }
    var indices: [Int] { all.map(\.index) }
    var count: Int { all.count }

    func record(_ tick: TimerTick) {
        ticks.withLock { $0.append(tick) }
    }
}

@Suite struct TimerScheduleTests {
    @Test func repeatingTimerTicksAtEachIntervalAndNotBefore() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .milliseconds(999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(999))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1, 2])
        #expect(log.all.allSatisfy { $0.lateness == .zero && $0.missed == 0 })
        #expect(log.all.map(\.due) == [TimerInstant(offset: .seconds(1)), TimerInstant(offset: .seconds(2))])
        #expect(timer.fireCount == 2)
        #expect(timer.state == .running)
        #expect(timer.remainingCount == nil)
    }

    @Test func onceFiresExactlyOnceAtItsDelay() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.milliseconds(500)), scheduler: clock, log.record).start()
        clock.advance(by: .nanoseconds(499_999_999))
        #expect(log.count == 0)
        clock.advance(by: .nanoseconds(1))
        #expect(log.indices == [1])
        clock.advance(by: .seconds(10))
        #expect(log.indices == [1])
        #expect(timer.state == .finished)
        #expect(clock.pendingCount == 0)
    }

    @Test func finiteTimerStopsAfterItsCount() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.milliseconds(250), repeats: .times(3)), scheduler: clock, log.record)
        timer.start()
        #expect(timer.remainingCount == 3)
        clock.advance(by: .milliseconds(500))
        #expect(timer.remainingCount == 1)
        clock.advance(by: .seconds(5))
        #expect(log.indices == [1, 2, 3])
        #expect(timer.state == .finished)
        #expect(timer.remainingCount == 0)
        #expect(clock.pendingCount == 0)
    }

    @Test func initialDelayMovesOnlyTheFirstTick() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), first: .after(.milliseconds(200))), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .milliseconds(199))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(999))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1, 2])
    }

    @Test func zeroInitialDelayTicksAtOnce() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), first: .after(.zero)), scheduler: clock, log.record)
        timer.start()
        #expect(log.count == 0)
        clock.advance(by: .zero)
        #expect(log.indices == [1])
    }

    @Test func absoluteStartAnchorsTheGridAtThatInstant() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let start = TimerInstant(offset: .milliseconds(2_500))
        let timer = try TempoTimer(.every(.seconds(1), first: .at(.monotonic(start))), scheduler: clock, log.record)
        timer.start()
        clock.advance(to: TimerInstant(offset: .milliseconds(2_499)))
        #expect(log.count == 0)
        clock.advance(to: start)
        #expect(log.indices == [1])
        clock.advance(to: TimerInstant(offset: .milliseconds(3_500)))
        #expect(log.all.map(\.due) == [start, start + .seconds(1)])
    }

    @Test func onceAtWithThrowRejectsAnInstantInThePast() throws {
        let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(10)))
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.at(.monotonic(TimerInstant(offset: .seconds(9))), ifPast: .throw), scheduler: clock) { _ in
            }.start()
        }
        #expect(error?.code == .invalidInstant)
        #expect(error?.message.contains("9.0 seconds") == true)
        let log = TickLog()
        try TempoTimer(.at(.monotonic(TimerInstant(offset: .seconds(12)))), scheduler: clock, log.record).start()
        clock.advance(by: .milliseconds(1_999))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
    }

    @Test func ticksStayAnchoredToTheGridAfterALateTick() throws {
        // A suspension makes tick 1 run 300 ms late; tick 2 is still due at 2 s, not 2.3 s.
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), clock: .continuous), scheduler: clock, log.record)
        timer.start()
        clock.suspend(for: .milliseconds(1_300))
        #expect(log.all.map(\.lateness) == [.milliseconds(300)])
        clock.advance(by: .milliseconds(699))
        #expect(log.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(log.all.last?.due == TimerInstant(offset: .seconds(2)))
        #expect(log.all.last?.lateness == .zero)
    }

    @Test func nothingDriftsOverManyTicks() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.microseconds(333)), scheduler: clock, log.record)
        timer.start()
        for _ in 0..<100 { clock.advance(by: .microseconds(3_331)) }
        let ticks = log.all
        #expect(ticks.count == 1_000)
        #expect(ticks.last?.due == TimerInstant(offset: .microseconds(333) * 1_000))
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1.due - $0.due == .microseconds(333) })
    }

    @Test func subMillisecondIntervalsAreNotTruncated() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.microseconds(1), repeats: .times(3)), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .nanoseconds(999))
        #expect(log.count == 0)
        clock.advance(by: .nanoseconds(1))
        #expect(log.indices == [1])
        let half = try TempoTimer(.every(seconds: 0.5), scheduler: clock) { _ in }
        #expect(half.schedule.interval == .nanoseconds(500_000_000))
    }
}
