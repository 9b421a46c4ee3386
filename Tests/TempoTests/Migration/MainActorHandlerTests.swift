import Tempo
import TempoTesting
import Testing

/// Main-actor state a UI would keep, touched by `@MainActor` handlers without `MainActor.assumeIsolated`.
@MainActor final class TickCounterModel {
    var ticks: [Int] = []
    func record(_ tick: TimerTick) {
        MainActor.assertIsolated()
        ticks.append(tick.index)
    }
}

/// Trap 7 of issue #10: `@MainActor` handlers for the core timer, the registry and the ticker.
///
/// The tests are not main-actor isolated: `VirtualClock.advance` waits for the main queue, which the main thread
/// serves meanwhile.
@Suite struct MainActorHandlerTests {
    @Test func aTimerWithTheDefaultDeliveryCallsAMainActorHandlerOnTheMainActor() async throws {
        let clock = VirtualClock()
        let model = TickCounterModel()
        let timer = try TempoTimer(
            .every(.seconds(1), repeats: .times(3)), scheduler: clock,
            handler: .mainActor {
                tick in model.record(tick)
            }
        ).start()
        clock.advance(by: .milliseconds(999))
        #expect(await model.ticks == [])
        clock.advance(by: .milliseconds(1))
        #expect(await model.ticks == [1])
        clock.advance(by: .seconds(5))
        #expect(await model.ticks == [1, 2, 3])
        #expect(timer.state == .finished)
    }

    @Test func aOneShotWithAMainActorHandlerFiresOnce() async throws {
        let clock = VirtualClock()
        let model = TickCounterModel()
        try TempoTimer(.after(.seconds(2)), scheduler: clock, handler: .mainActor { tick in model.record(tick) })
            .start()
        clock.advance(by: .seconds(3))
        #expect(await model.ticks == [1])
    }

    @Test func theRegistryCallsMainActorHandlers() async throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let model = TickCounterModel()
        try registry.schedule(
            "poll", .every(.seconds(1), repeats: .times(2)),
            handler: .mainActor { tick in
                model.record(tick)
            })
        try registry.schedule(
            "once", .after(.milliseconds(1_500)),
            handler: .mainActor { _ in
                model.ticks.append(100)
            })
        clock.advance(by: .seconds(3))
        #expect(await model.ticks == [1, 100, 2])
        #expect(registry.count == 0)
    }

    @Test func theTickerCallsMainActorSubscribers() async throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1), delivery: .queue(.main)), scheduler: clock)
        let model = TickCounterModel()
        let subscription = try ticker.subscribe(everyNth: 2, handler: .mainActor { tick in model.record(tick) })
        clock.advance(by: .seconds(4))
        #expect(await model.ticks == [2, 4])
        subscription.cancel()
        #expect(!ticker.isTicking)
    }

    @Test func aMainActorSubscriberOfADefaultDeliveryTickerRunsOnTheMainActorAsOnATimer() async throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let model = TickCounterModel()
        let subscription = try ticker.subscribe(everyNth: 2, handler: .mainActor { tick in model.record(tick) })
        clock.advance(by: .milliseconds(1_999))
        #expect(await model.ticks == [])
        clock.advance(by: .milliseconds(1))
        #expect(await model.ticks == [2])
        clock.advance(by: .seconds(2))
        #expect(await model.ticks == [2, 4])
        subscription.cancel()
        #expect(!ticker.isTicking)
    }

    @Test func aMainActorSubscriberOfATickerThatDeliversElsewhereIsATypedErrorAsOnATimer() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1), delivery: .immediate), scheduler: clock)
        let subscribing = #expect(throws: TempoError.self) {
            _ = try ticker.subscribe(handler: .mainActor { _ in })
        }
        #expect(subscribing?.code == .invalidArgument)
        let creating = #expect(throws: TempoError.self) {
            _ = try TempoTimer(
                .every(.seconds(1), delivery: .immediate), scheduler: clock, handler: .mainActor { _ in })
        }
        #expect(creating?.code == .invalidArgument)
    }
}
