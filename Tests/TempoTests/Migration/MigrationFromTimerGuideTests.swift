import Foundation
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// The Tempo column of the "Migrating from Timer and NSTimer" article, compiled and run.
@Suite struct MigrationFromTimerGuideTests {
    @Test func scheduledRepeatingAndOneShotTimersStartAtOnce() throws {
        let clock = VirtualClock()
        let refreshed = SaveCounter()
        let expired = SaveCounter()
        @Sendable func refresh() { refreshed.increment() }
        @Sendable func expire() { expired.increment() }
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in refresh() }.start()
        try TempoTimer(.after(.seconds(5)), scheduler: clock) { _ in expire() }.start()
        clock.advance(by: .milliseconds(4_999))
        #expect(refreshed.value == 4 && expired.value == 0)
        clock.advance(by: .milliseconds(1))
        #expect(refreshed.value == 5 && expired.value == 1)
        #expect(timer.state == .running)
        timer.cancel()
    }

    @Test func aTimerAtADate() throws {
        let clock = VirtualClock()
        let fired = SaveCounter()
        let date = Date(timeIntervalSince1970: 1_767_225_600 + 60)
        try TempoTimer(
            .at(TimerDeadline(timeIntervalSince1970: date.timeIntervalSince1970)),
            scheduler: clock
        ) { _ in fired.increment() }.start()
        clock.advance(by: .seconds(59))
        #expect(fired.value == 0)
        clock.advance(by: .seconds(1))
        #expect(fired.value == 1)
    }

    @Test func aHandlerInvalidatesItsOwnTimer() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { timer, tick in
            log.record(tick)
            if tick.index == 10 { timer.cancel() }
        }.start()
        clock.advance(by: .seconds(20))
        #expect(log.count == 10)
        #expect(timer.state == .cancelled)
    }

    @Test func toleranceFireInvalidateAndIsValid() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock, log.record).start()
        try timer.setLeeway(.milliseconds(100))
        #expect(timer.leeway == .milliseconds(100))
        timer.fire()
        #expect(log.all.map(\.isManual) == [true])
        #expect(timer.state == .running)
        timer.cancel()
        #expect(timer.state != .running)
        clock.advance(by: .seconds(5))
        #expect(log.count == 1)
    }

    @Test func aWeakTargetNeedsNoProxyAndNoDeinit() throws {
        final class Screen: Sendable {
            let ticks = SaveCounter()
            func tick() { ticks.increment() }
        }
        let clock = VirtualClock()
        var screen: Screen? = Screen()
        let ticks = try #require(screen?.ticks)
        let timer = try TempoTimer(
            .every(.seconds(1)), scheduler: clock,
            handler: .weak(try #require(screen)) { owner, _ in
                owner.tick()
            })
        timer.start()
        clock.advance(by: .seconds(2))
        #expect(ticks.value == 2)
        screen = nil
        clock.advance(by: .seconds(1))
        #expect(timer.state == .cancelled)
        #expect(ticks.value == 2)
    }

    @Test func aMainActorTimerUpdatesUIState() async throws {
        let clock = VirtualClock()
        let model = TickCounterModel()
        let timer = try TempoTimer(
            .every(.seconds(1)), scheduler: clock,
            handler: .mainActor { tick in
                model.record(tick)
            }
        ).start()
        clock.advance(by: .seconds(2))
        #expect(await model.ticks == [1, 2])
        timer.cancel()
    }

    @Test func theArticleExampleBacksOffAndStopsWithItsOwner() throws {
        let clock = VirtualClock()
        var model: FeedViewModel? = try FeedViewModel(scheduler: clock)
        let refreshes = try #require(model?.refreshes)
        clock.advance(by: .seconds(90))
        #expect(refreshes.value == 3)
        clock.advance(by: .seconds(59))
        #expect(refreshes.value == 3)
        clock.advance(by: .seconds(1))
        #expect(refreshes.value == 4)
        model = nil
        #expect(clock.pendingCount == 0)
    }
}

/// The article's example.
final class FeedViewModel: Sendable {
    let refreshes = SaveCounter()
    private let timer: TimerHandle

    init(scheduler: any TimerScheduler = SystemScheduler.shared) throws {
        let refreshes = refreshes
        timer = try TempoTimer(.every(.seconds(30)), scheduler: scheduler) { timer, tick in
            refreshes.increment()
            if tick.index == 3 { try? timer.reset(interval: .minutes(1)) }  // back off after three polls
        }.start().cancelledOnRelease()
    }
}
