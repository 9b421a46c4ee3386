import Synchronization
import Tempo
import TempoTesting
import Testing

/// Collects ticks from handlers (which run on other queues) for assertions.
final class TickLog: Sendable {
    private let ticks = Mutex<[TimerTick]>([])

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
        let timer = try TempoTimer(every: .seconds(1), scheduler: clock, handler: log.record)
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
        #expect(timer.fireCount == 2)
        #expect(timer.state == .running)
    }

    @Test func finiteTimerStopsAfterItsCount() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(every: .milliseconds(250), repeats: .times(3), scheduler: clock, handler: log.record)
        timer.start()
        #expect(timer.remainingCount == 3)
        clock.advance(by: .seconds(5))
        #expect(log.indices == [1, 2, 3])
        #expect(timer.state == .finished)
        #expect(timer.remainingCount == 0)
        #expect(clock.pendingCount == 0)
    }
}
