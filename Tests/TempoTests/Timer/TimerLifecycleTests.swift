import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

final class StateLog: Sendable {
    private let states = TempoMutex<[TimerState]>([])
    var all: [TimerState] { states.withLock { $0 } }
    func record(_ state: TimerState) { states.withLock { $0.append(state) } }
}

@Suite struct TimerLifecycleTests {
    @Test func pauseKeepsTheRemainingTimeAndResumeShiftsTheGrid() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .milliseconds(300))
        timer.pause()
        #expect(timer.state == .paused)
        #expect(timer.timeUntilNextTick == .milliseconds(700))
        clock.advance(by: .seconds(5))
        #expect(log.count == 0)
        #expect(clock.pendingCount == 0)
        timer.resume()
        clock.advance(by: .milliseconds(699))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(999))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1, 2])
        #expect(log.all.last?.due == TimerInstant(offset: .seconds(7)))
    }

    @Test func resetStartsTheScheduleOverWithANewInterval() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(3)), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .milliseconds(1_500))
        #expect(timer.fireCount == 1)
        try timer.reset(interval: .milliseconds(200))
        #expect(timer.fireCount == 0)
        #expect(timer.remainingCount == 3)
        clock.advance(by: .milliseconds(199))
        #expect(log.indices == [1])
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [1, 1])
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1, 1, 2, 3])
        #expect(timer.state == .finished)
    }

    @Test func resetWhilePausedStaysPausedWithAFullInterval() throws {
        let clock = VirtualClock()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock)
        timer.start()
        clock.advance(by: .milliseconds(600))
        timer.pause()
        try timer.reset()
        #expect(timer.state == .paused)
        #expect(timer.timeUntilNextTick == .seconds(1))
    }

    @Test func cancelStopsTicksAndStartRunsAgainFromScratch() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .seconds(2))
        timer.cancel()
        #expect(timer.state == .cancelled)
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(5))
        #expect(log.indices == [1, 2])
        timer.start()
        #expect(timer.fireCount == 0)
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1, 2, 1])
    }

    @Test func finishedTimerCanBeStartedAgain() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock, log.record).start()
        clock.advance(by: .seconds(1))
        #expect(timer.state == .finished)
        timer.start()
        #expect(timer.state == .running)
        clock.advance(by: .seconds(1))
        #expect(log.count == 2)
    }

    @Test func fireRunsHandlersNowAndLeavesTheScheduleAlone() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .milliseconds(400))
        #expect(timer.fire())
        #expect(log.all.map(\.isManual) == [true])
        #expect(timer.fireCount == 0)
        clock.advance(by: .milliseconds(599))
        #expect(log.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(log.all.map(\.isManual) == [true, false])
        timer.cancel()
        #expect(!timer.fire())
        #expect(log.count == 2)
    }

    @Test func everyCallIsIdempotent() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.pause()
        timer.resume()
        #expect(timer.state == .idle)
        timer.start()
        timer.start()
        #expect(clock.pendingCount == 1)
        timer.pause()
        timer.pause()
        timer.resume()
        timer.resume()
        #expect(clock.pendingCount == 1)
        timer.cancel()
        timer.cancel()
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(3))
        #expect(log.count == 0)
    }

    @Test func startOnAPausedTimerResumesIt() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .milliseconds(250))
        timer.pause()
        timer.start()
        clock.advance(by: .milliseconds(750))
        #expect(log.indices == [1])
    }

    @Test func stateChangesAreReportedInOrder() throws {
        let clock = VirtualClock()
        let states = StateLog()
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(2)), scheduler: clock)
        timer.onStateChange(states.record)
        timer.start()
        timer.pause()
        timer.resume()
        clock.advance(by: .seconds(2))
        timer.cancel()
        timer.start()
        #expect(states.all == [.running, .paused, .running, .finished, .cancelled, .running])
    }

    @Test func leewayCanChangeWhileRunning() throws {
        let recorder = RecordingScheduler()
        let timer = try TempoTimer(.every(.seconds(1), leeway: .milliseconds(5)), scheduler: recorder)
        timer.start()
        try timer.setLeeway(.milliseconds(50))
        #expect(recorder.leeways == [.milliseconds(5), .milliseconds(50)])
        #expect(recorder.virtual.pendingCount == 1)
        #expect(timer.leeway == .milliseconds(50))
        // The recording wrapper keeps its VirtualClock strongly, so the clock cannot release this running timer
        // when the test ends (timer, wrapper, clock, pending action, timer): cancel it.
        timer.cancel()
    }
}

/// Wraps a `VirtualClock` and records the leeway of every `schedule` call.
final class RecordingScheduler: DeliveringScheduler {
    let virtual = VirtualClock()
    private let recorded = TempoMutex<[Duration]>([])
    var leeways: [Duration] { recorded.withLock { $0 } }

    func now(_ clock: TimerClock) -> TimerInstant { virtual.now(clock) }

    func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        recorded.withLock { $0.append(leeway) }
        return virtual.schedule(at: deadline, leeway: leeway, clock: clock, action)
    }

    func cancel(_ action: ScheduledAction) { virtual.cancel(action) }

    func execute(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> Void) {
        virtual.execute(on: queue, work)
    }
}
