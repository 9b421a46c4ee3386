import Tempo
import TempoTesting
import Testing

@Suite struct AsyncTickSequenceTests {
    @Test func ticksAtEachIntervalAndNotBefore() async throws {
        let clock = VirtualClock()
        let log = AsyncTickLog<TimerInstant>()
        let ticks = try AsyncTickSequence(every: .seconds(1), repeats: .times(2), clock: clock)
        let consumer = Task {
            for await tick in ticks { log.record(tick) }
        }
        try #require(await clock.waitForPending())
        let start = clock.now
        clock.advance(by: .milliseconds(999))
        #expect(clock.pendingCount == 1)
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        try #require(await eventually { log.count == 1 })
        try #require(await clock.waitForPending())
        clock.advance(by: .milliseconds(999))
        #expect(log.count == 1)
        clock.advance(by: .milliseconds(1))
        await consumer.value
        #expect(log.indices == [1, 2])
        #expect(log.all.map(\.due) == [start + .seconds(1), start + .seconds(2)])
        #expect(log.all.allSatisfy { $0.lateness == .zero && $0.missed == 0 })
        #expect(clock.pendingCount == 0)
    }

    @Test func aConsumerThatWorksBetweenTicksDoesNotDrift() async throws {
        // Each loop body takes 0.3 ms of virtual time. A sleep-for-the-interval loop ends 1000 × 0.3 ms late;
        // the anchored sequence delivers tick 1000 exactly at start + 1000 ms.
        let work = Duration.microseconds(300)
        let clock = VirtualClock()
        let start = clock.now
        let ticks = try AsyncTickSequence(every: .milliseconds(1), repeats: .times(1000), clock: clock)
        let log = AsyncTickLog<TimerInstant>()
        let consumerDone = Flag()
        let consumer = Task {
            for await tick in ticks {
                log.record(tick)
                try? await clock.sleep(for: work)
            }
            consumerDone.set()
        }
        await drive(clock) { consumerDone.isSet }
        await consumer.value
        let last = try #require(log.all.last)
        #expect(last.index == 1000)
        #expect(last.due == start + .milliseconds(1000))
        #expect(log.all.allSatisfy { $0.lateness == .zero && $0.missed == 0 })

        let loopClock = VirtualClock()
        let iterations = AsyncTickLog<TimerInstant>()
        let loopDone = Flag()
        let sleepLoop = Task {
            for index in 1...1000 {
                try? await loopClock.sleep(for: .milliseconds(1))
                iterations.record(AsyncTick(index: index, due: loopClock.now, lateness: .zero))
                try? await loopClock.sleep(for: work)
            }
            loopDone.set()
        }
        await drive(loopClock) { loopDone.isSet }
        await sleepLoop.value
        #expect(iterations.all.last?.due == start + .milliseconds(1000) + work * 999)
    }

    @Test func finiteSequenceEndsAndLeavesNothingArmed() async throws {
        let clock = VirtualClock()
        let log = AsyncTickLog<TimerInstant>()
        let ticks = try clock.ticks(every: .milliseconds(250), repeats: .times(3))
        let consumer = Task {
            for await tick in ticks { log.record(tick) }
        }
        await drive(clock) { log.count == 3 }
        await consumer.value
        #expect(log.indices == [1, 2, 3])
        #expect(clock.now == .zero + .milliseconds(750))
        #expect(clock.pendingCount == 0)
    }

    @Test func invalidScheduleThrowsNamingTheValue() {
        let clock = VirtualClock()
        #expect(throws: TempoError.self) { try AsyncTickSequence(every: .zero, clock: clock) }
        #expect { try AsyncTickSequence(every: .seconds(-1), clock: clock) } throws: { error in
            (error as? TempoError)?.code == .invalidInterval && (error as? TempoError)?.value == "-1 seconds"
        }
        #expect { try clock.ticks(every: .seconds(1), repeats: .times(0)) } throws: { error in
            (error as? TempoError)?.code == .invalidCount
        }
        #expect { try clock.ticks(every: .seconds(1), leeway: .nanoseconds(-1)) } throws: { error in
            (error as? TempoError)?.code == .invalidLeeway
        }
    }
}
