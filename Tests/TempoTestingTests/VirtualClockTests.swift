import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

final class EventLog: Sendable {
    private let events = TempoMutex<[String]>([])
    var all: [String] { events.withLock { $0 } }
    func record(_ event: String) { events.withLock { $0.append(event) } }
}

@Suite struct VirtualClockTests {
    @Test func runsActionsInDeadlineOrderAndFIFOAmongEquals() {
        let clock = VirtualClock()
        let log = EventLog()
        for (name, ms) in [("c", 30), ("a1", 10), ("b", 20), ("a2", 10), ("a3", 10)] {
            _ = clock.schedule(at: TimerInstant(offset: .milliseconds(ms)), leeway: .zero, clock: .monotonic) {
                log.record(name)
            }
        }
        #expect(clock.pendingCount == 5)
        clock.advance(by: .milliseconds(9))
        #expect(log.all.isEmpty)
        clock.advance(by: .milliseconds(21))
        #expect(log.all == ["a1", "a2", "a3", "b", "c"])
        #expect(clock.pendingCount == 0)
    }

    @Test func equalDeadlinesAcrossClocksRunInSchedulingOrder() {
        let clock = VirtualClock()
        let log = EventLog()
        let wallStart = clock.now(.wall)
        _ = clock.schedule(at: wallStart + .seconds(1), leeway: .zero, clock: .wall) { log.record("wall") }
        _ = clock.schedule(at: TimerInstant(offset: .seconds(1)), leeway: .zero, clock: .monotonic) {
            log.record("monotonic")
        }
        clock.advance(by: .seconds(1))
        #expect(log.all == ["wall", "monotonic"])
    }

    @Test func nowReadsEachDeadlineWhileItsActionRuns() {
        let clock = VirtualClock()
        let seen = TempoMutex<[TimerInstant]>([])
        for ms in [5, 7] {
            _ = clock.schedule(at: TimerInstant(offset: .milliseconds(ms)), leeway: .seconds(1), clock: .monotonic) {
                seen.withLock { $0.append(clock.now(.monotonic)) }
            }
        }
        clock.advance(by: .seconds(1))
        #expect(
            seen.withLock { $0 } == [TimerInstant(offset: .milliseconds(5)), TimerInstant(offset: .milliseconds(7))])
        #expect(clock.now(.monotonic) == TimerInstant(offset: .seconds(1)))
    }

    @Test func actionsScheduledByActionsRunWithinTheSameAdvance() {
        let clock = VirtualClock()
        let log = EventLog()
        _ = clock.schedule(at: TimerInstant(offset: .milliseconds(10)), leeway: .zero, clock: .monotonic) {
            log.record("first")
            _ = clock.schedule(at: clock.now(.monotonic) + .milliseconds(5), leeway: .zero, clock: .monotonic) {
                log.record("second")
            }
        }
        clock.advance(by: .milliseconds(14))
        #expect(log.all == ["first"])
        clock.advance(by: .milliseconds(1))
        #expect(log.all == ["first", "second"])
    }

    @Test func cancelledActionsNeverRun() {
        let clock = VirtualClock()
        let log = EventLog()
        let action = clock.schedule(at: TimerInstant(offset: .seconds(1)), leeway: .zero, clock: .monotonic) {
            log.record("ran")
        }
        clock.cancel(action)
        clock.cancel(action)
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(2))
        #expect(log.all.isEmpty)
    }

    @Test func advanceToAPastInstantDoesNotMoveTimeBack() {
        let clock = VirtualClock()
        clock.advance(by: .seconds(5))
        clock.advance(to: TimerInstant(offset: .seconds(1)))
        #expect(clock.now(.monotonic) == TimerInstant(offset: .seconds(5)))
    }

    @Test func suspensionMovesContinuousAndWallButNotMonotonic() {
        let clock = VirtualClock()
        let wall = clock.now(.wall)
        clock.suspend(for: .seconds(60))
        #expect(clock.now(.monotonic) == .zero)
        #expect(clock.now(.continuous) == TimerInstant(offset: .seconds(60)))
        #expect(clock.now(.wall) == wall + .seconds(60))
    }

    @Test func wallClockJumpsMoveOnlyTheWallClock() {
        let clock = VirtualClock()
        let wall = clock.now(.wall)
        clock.adjustWallClock(by: .seconds(-30))
        #expect(clock.now(.wall) == wall - .seconds(30))
        #expect(clock.now(.monotonic) == .zero)
        #expect(clock.now(.continuous) == .zero)
    }

    @Test func overdueActionsRunMostOverdueFirstOnWake() {
        let clock = VirtualClock()
        let log = EventLog()
        _ = clock.schedule(at: TimerInstant(offset: .seconds(2)), leeway: .zero, clock: .continuous) {
            log.record("late by 8")
        }
        _ = clock.schedule(at: TimerInstant(offset: .seconds(1)), leeway: .zero, clock: .continuous) {
            log.record("late by 9")
        }
        clock.suspend(for: .seconds(10))
        #expect(log.all == ["late by 9", "late by 8"])
    }

    @Test func runUntilIdleStopsWhenNothingIsPendingOrAtTheLimit() throws {
        let clock = VirtualClock()
        let log = EventLog()
        let once = try TempoTimer(.after(.seconds(30)), scheduler: clock) { log.record("\($0.index)") }
        once.start()
        #expect(clock.runUntilIdle() == 1)
        #expect(log.all == ["1"])
        #expect(clock.now(.monotonic) == TimerInstant(offset: .seconds(30)))
        let forever = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in }
        forever.start()
        #expect(clock.runUntilIdle(limit: 10) == 10)
        #expect(forever.fireCount == 10)
        #expect(clock.pendingCount(on: .monotonic) == 1)
    }
}
