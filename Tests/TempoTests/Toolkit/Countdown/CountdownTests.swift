import Foundation
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Records a countdown's callbacks.
private final class CountdownLog: Sendable {
    private let ticks = TempoMutex<[Duration]>([])
    private let finishes = TempoMutex(0)
    var remaining: [Duration] { ticks.withLock { $0 } }
    var finishCount: Int { finishes.withLock { $0 } }
    func tick(_ left: Duration) { ticks.withLock { $0.append(left) } }
    func finish() { finishes.withLock { $0 += 1 } }
}

// The example of the Countdown article.
private final class ResendButtonModel: Sendable {
    let countdown: Countdown

    init(scheduler: any TimerScheduler = SystemScheduler.shared, show: @escaping @Sendable (String) -> Void) throws {
        countdown = try Countdown(duration: .seconds(60), scheduler: scheduler) { remaining in
            show("Resend in \(remaining.components.seconds) s")
        } onFinish: {
            show("Resend code")
        }
    }

    func codeSent() { countdown.start() }

    func save() -> Countdown.Snapshot { countdown.snapshot() }
}

@Suite struct CountdownTests {
    private func makeCountdown(
        _ duration: Duration,
        clock: VirtualClock,
        on timerClock: TimerClock = .continuous,
        log: CountdownLog
    ) throws -> Countdown {
        try Countdown(duration: duration, clock: timerClock, scheduler: clock, onTick: log.tick, onFinish: log.finish)
    }

    @Test func ticksOnEachSecondBoundaryAndFinishesOnceAtTheDeadline() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(5), clock: clock, log: log)
        #expect(countdown.remaining == .seconds(5))
        countdown.start()
        clock.advance(by: .milliseconds(999))
        #expect(log.remaining.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(log.remaining == [.seconds(4)])
        clock.advance(by: .milliseconds(3999))
        #expect(log.remaining == [.seconds(4), .seconds(3), .seconds(2), .seconds(1)])
        #expect(log.finishCount == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.finishCount == 1)
        #expect(countdown.phase == .finished)
        #expect(countdown.remaining == .zero)
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(10))
        #expect(log.finishCount == 1)
        #expect(log.remaining.count == 4)
    }

    @Test func ticksAlignToTheDeadlineForAFractionalDuration() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.milliseconds(2500), clock: clock, log: log)
        countdown.start()
        clock.advance(by: .milliseconds(499))
        #expect(log.remaining.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(log.remaining == [.seconds(2)])
        clock.advance(by: .seconds(2))
        #expect(log.remaining == [.seconds(2), .seconds(1)])
        #expect(log.finishCount == 1)
    }

    @Test func afterASuspensionTheNextTickShowsTheTrueRemainingTime() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(60), clock: clock, log: log)
        countdown.start()
        clock.advance(by: .seconds(10))
        #expect(log.remaining.last == .seconds(50))
        clock.suspend(for: .seconds(20))
        #expect(log.remaining.last == .seconds(30))
        #expect(log.remaining.count == 11)  // the missed boundaries were coalesced into one tick
        clock.advance(by: .seconds(1))
        #expect(log.remaining.last == .seconds(29))
        #expect(countdown.remaining == .seconds(29))
    }

    @Test func aCountdownThatRanOutWhileSuspendedFinishesAtOnce() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(10), clock: clock, log: log)
        countdown.start()
        clock.advance(by: .seconds(3))
        clock.suspend(for: .seconds(60))
        #expect(log.finishCount == 1)
        #expect(log.remaining == [.seconds(9), .seconds(8), .seconds(7)])
        #expect(countdown.phase == .finished)
        #expect(clock.pendingCount == 0)
    }

    @Test func wallClockCountdownFollowsTheCalendarClock() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(60), clock: clock, on: .wall, log: log)
        countdown.start()
        clock.advance(by: .seconds(1))
        clock.adjustWallClock(by: .seconds(30))
        #expect(log.remaining == [.seconds(59), .seconds(29)])
    }

    @Test func monotonicCountdownStopsWhileTheMachineSleeps() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(10), clock: clock, on: .monotonic, log: log)
        countdown.start()
        clock.suspend(for: .seconds(60))
        #expect(log.remaining.isEmpty)
        #expect(countdown.remaining == .seconds(10))
    }

    @Test func pauseFreezesTheRemainingTimeAndResumeRealignsTheTicks() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(10), clock: clock, log: log)
        countdown.start()
        clock.advance(by: .milliseconds(2500))
        countdown.pause()
        #expect(countdown.phase == .paused)
        #expect(countdown.remaining == .milliseconds(7500))
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(100))
        #expect(log.remaining == [.seconds(9), .seconds(8)])
        countdown.resume()
        clock.advance(by: .milliseconds(499))
        #expect(log.remaining.count == 2)
        clock.advance(by: .milliseconds(1))
        #expect(log.remaining.last == .seconds(7))
        clock.advance(by: .seconds(7))
        #expect(log.finishCount == 1)
    }

    @Test func cancelStopsWithoutFinishing() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(5), clock: clock, log: log)
        countdown.start()
        clock.advance(by: .seconds(2))
        countdown.cancel()
        #expect(countdown.phase == .cancelled)
        #expect(countdown.remaining == .seconds(3))
        clock.advance(by: .seconds(10))
        #expect(log.finishCount == 0)
        #expect(log.remaining.count == 2)
        #expect(clock.pendingCount == 0)
        countdown.start()  // a new full run
        clock.advance(by: .seconds(5))
        #expect(log.finishCount == 1)
    }

    @Test func addingTimeMovesTheDeadline() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(10), clock: clock, log: log)
        #expect(try countdown.add(.seconds(1)))  // idle: 11 s
        countdown.start()
        clock.advance(by: .seconds(3))
        #expect(try countdown.add(.milliseconds(5500)))
        #expect(countdown.remaining == .milliseconds(13500))
        clock.advance(by: .milliseconds(499))
        #expect(log.remaining.last == .seconds(8))
        clock.advance(by: .milliseconds(1))
        #expect(log.remaining.last == .seconds(13))
        clock.advance(by: .milliseconds(12999))
        #expect(log.finishCount == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.finishCount == 1)
        #expect(try countdown.add(.seconds(1)) == false)
        #expect(throws: TempoError.self) { try countdown.add(.zero) }
    }

    @Test func invalidDurationsThrow() {
        let clock = VirtualClock()
        #expect(throws: TempoError.self) {
            try Countdown(duration: .zero, scheduler: clock, onTick: { _ in }, onFinish: {})
        }
        #expect(throws: TempoError.self) {
            try Countdown(duration: .seconds(5), every: .seconds(-1), scheduler: clock, onTick: { _ in }, onFinish: {})
        }
    }

    @Test func snapshotRestoresARunningCountdownAfterARestart() throws {
        let first = VirtualClock()
        let log = CountdownLog()
        let countdown = try makeCountdown(.seconds(60), clock: first, log: log)
        countdown.start()
        first.advance(by: .seconds(20))
        let data = try JSONEncoder().encode(countdown.snapshot())
        countdown.cancel()

        // A new process, 10 s of wall time later, with fresh monotonic and continuous clocks.
        let second = VirtualClock(wall: first.now(.wall) + .seconds(10))
        let restoredLog = CountdownLog()
        let snapshot = try JSONDecoder().decode(Countdown.Snapshot.self, from: data)
        #expect(snapshot.wallDeadline == first.now(.wall) + .seconds(40))
        let restored = try Countdown(
            restoring: snapshot,
            scheduler: second,
            onTick: restoredLog.tick,
            onFinish: restoredLog.finish
        )
        #expect(restored.phase == .running)
        #expect(restored.remaining == .seconds(30))
        second.advance(by: .milliseconds(999))
        #expect(restoredLog.remaining.isEmpty)
        second.advance(by: .milliseconds(1))
        #expect(restoredLog.remaining == [.seconds(29)])
        second.advance(by: .seconds(29))
        #expect(restoredLog.finishCount == 1)
    }

    @Test func restoredCountdownWhoseDeadlinePassedFinishesAtOnce() throws {
        let first = VirtualClock()
        let countdown = try makeCountdown(.seconds(60), clock: first, log: CountdownLog())
        countdown.start()
        let snapshot = countdown.snapshot()
        let second = VirtualClock(wall: first.now(.wall) + .seconds(600))
        let log = CountdownLog()
        let restored = try Countdown(restoring: snapshot, scheduler: second, onTick: log.tick, onFinish: log.finish)
        second.advance(by: .zero)
        #expect(log.finishCount == 1)
        #expect(log.remaining.isEmpty)
        #expect(restored.phase == .finished)
    }

    @Test func pausedSnapshotRestoresPaused() throws {
        let clock = VirtualClock()
        let countdown = try makeCountdown(.seconds(60), clock: clock, log: CountdownLog())
        countdown.start()
        clock.advance(by: .seconds(15))
        countdown.pause()
        let snapshot = countdown.snapshot()
        #expect(snapshot.wallDeadline == nil)
        let log = CountdownLog()
        let restored = try Countdown(restoring: snapshot, scheduler: clock, onTick: log.tick, onFinish: log.finish)
        #expect(restored.phase == .paused)
        #expect(restored.remaining == .seconds(45))
        clock.advance(by: .seconds(100))
        #expect(log.remaining.isEmpty)
        restored.resume()
        clock.advance(by: .seconds(45))
        #expect(log.finishCount == 1)
        var broken = snapshot
        broken.phase = .running
        #expect(throws: TempoError.self) {
            try Countdown(restoring: broken, scheduler: clock, onTick: { _ in }, onFinish: {})
        }
    }

    @Test func finishRunsExactlyOnceUnderConcurrentPauseResumeAndAdd() throws {
        let clock = VirtualClock()
        let log = CountdownLog()
        let countdown = try Countdown(
            duration: .seconds(2),
            every: .milliseconds(100),
            delivery: .immediate,
            scheduler: clock,
            onTick: log.tick,
            onFinish: log.finish
        )
        countdown.start()
        Thread.run(4) { worker in
            for round in 0..<300 {
                switch worker {
                case 0: clock.advance(by: .milliseconds(10))
                case 1: _ = try? countdown.add(.milliseconds(1))
                case 2: if round % 2 == 0 { countdown.pause() } else { countdown.resume() }
                default: _ = countdown.remaining
                }
            }
        }
        countdown.resume()
        clock.advance(by: .seconds(60))
        #expect(log.finishCount == 1)
        #expect(countdown.phase == .finished)
        #expect(log.remaining.allSatisfy { $0 > .zero })
    }

    @Test func articleExampleResendButton() throws {
        let clock = VirtualClock()
        let titles = TempoMutex<[String]>([])
        let model = try ResendButtonModel(scheduler: clock) { title in titles.withLock { $0.append(title) } }
        model.codeSent()
        clock.advance(by: .seconds(1))
        #expect(titles.withLock { $0 }.last == "Resend in 59 s")
        clock.suspend(for: .seconds(40))
        #expect(titles.withLock { $0 }.last == "Resend in 19 s")
        clock.suspend(for: .seconds(60))
        #expect(titles.withLock { $0 }.last == "Resend code")
        #expect(model.save().phase == .finished)
    }
}
