import Tempo
import TempoTesting
import Testing

/// State a UI would keep: main-actor isolated, touched by the tick handler without hops or locks.
@MainActor final class CountdownModel {
    var remaining: Int
    var missed = 0
    private(set) var task: Task<Void, Never>?

    init(remaining: Int) { self.remaining = remaining }

    func start(on clock: VirtualClock) throws {
        let total = remaining
        let ticks = try AsyncTickSequence(every: .seconds(1), repeats: .times(total), clock: clock)
        task = ticks.startOnMainActor { [weak self] tick in
            MainActor.assertIsolated()
            self?.remaining = total - tick.index
            self?.missed += tick.missed
        }
    }

    func stop() { task?.cancel() }
}

@Suite struct MainActorTickTests {
    @Test @MainActor func aMainActorHandlerUpdatesMainActorStateOnEachTick() async throws {
        let clock = VirtualClock()
        let model = CountdownModel(remaining: 3)
        try model.start(on: clock)
        try #require(await clock.waitForPending())
        clock.advance(by: .milliseconds(999))
        #expect(model.remaining == 3)
        clock.advance(by: .milliseconds(1))
        try #require(await eventually { model.remaining == 2 })
        try #require(await clock.waitForPending())
        // A 2.5 s stall: the handler gets one coalesced tick, not a burst.
        clock.advance(by: .milliseconds(2500))
        await model.task?.value
        #expect(model.remaining == 0)
        #expect(model.missed == 1)
        #expect(clock.pendingCount == 0)
    }

    @Test @MainActor func cancellingTheTaskStopsTheHandlerAndReleasesWhatItCaptured() async throws {
        let clock = VirtualClock()
        weak var weakModel: CountdownModel?
        var task: Task<Void, Never>?
        do {
            let model = CountdownModel(remaining: 100)
            weakModel = model
            try model.start(on: clock)
            task = model.task
            try #require(await clock.waitForPending())
            model.stop()
        }
        await task?.value
        task = nil
        #expect(clock.pendingCount == 0)
        #expect(weakModel == nil)
    }
}
