import Tempo
import TempoTesting
import Testing

/// The Tempo column of the "Migrating from a Shared Timer with Observers" article, compiled and run.
@Suite struct MigrationFromSharedTimerGuideTests {
    final class Clock: Sendable {
        let fired = SaveCounter()
        @Sendable func timerDidFire() { fired.increment() }
    }

    @Test func ownerSubscriptionsEndWithTheirOwner() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        var owner: Clock? = Clock()
        let fired = try #require(owner?.fired)
        _ = try ticker.subscribe(handler: .weak(try #require(owner)) { target, _ in target.timerDidFire() })
        clock.advance(by: .seconds(2))
        #expect(fired.value == 2)
        owner = nil
        clock.advance(by: .seconds(2))
        #expect(fired.value == 2)
        #expect(!ticker.isTicking)
    }

    @Test func tokensEveryNthTickPauseAndStartStop() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let redraws = SaveCounter()
        let saves = SaveCounter()
        @Sendable func redraw() { redraws.increment() }
        @Sendable func save() { saves.increment() }
        #expect(!ticker.isTicking)
        let subscription = try ticker.subscribe { _ in redraw() }
        let saving = try ticker.subscribe(everyNth: 5) { _ in save() }
        #expect(ticker.isTicking)
        clock.advance(by: .seconds(10))
        #expect(redraws.value == 10 && saves.value == 2)
        ticker.pause()
        clock.advance(by: .seconds(10))
        ticker.resume()
        clock.advance(by: .seconds(5))
        #expect(redraws.value == 15 && saves.value == 3)
        subscription.cancel()
        saving.cancel()
        #expect(!ticker.isTicking)
        #expect(clock.pendingCount == 0)
    }

    @Test func mainActorObservers() async throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1), delivery: .queue(.main)), scheduler: clock)
        let model = TickCounterModel()
        let subscription = try ticker.subscribe(handler: .mainActor { tick in model.record(tick) })
        clock.advance(by: .seconds(2))
        #expect(await model.ticks == [1, 2])
        subscription.cancel()
    }
}
