import Foundation
import Tempo
import TempoTesting
import Testing

/// The Tempo column of the "Migrating from a Keyed Timer Manager" article, compiled and run.
@Suite struct MigrationFromKeyedManagerGuideTests {
    @Test func mainAndGlobalQueueRepeatingTimers() async throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let model = TickCounterModel()
        let syncs = SaveCounter()
        @Sendable func sync() { syncs.increment() }
        try registry.schedule("poll", .every(.seconds(30)), handler: .mainActor { tick in model.record(tick) })
        try registry.schedule("sync", .every(.seconds(60), delivery: .queue(.global()))) { _ in sync() }
        clock.advance(by: .seconds(60))
        #expect(await model.ticks == [1, 2])
        #expect(syncs.value == 1)
        registry.cancelAll()
        #expect(registry.count == 0)
    }

    @Test func oneShotsFiniteTimersAndStartTimes() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let expired = SaveCounter()
        let retries = SaveCounter()
        let reports = TickLog()
        let rings = SaveCounter()
        @Sendable func expire() { expired.increment() }
        @Sendable func retry() { retries.increment() }
        @Sendable func ring() { rings.increment() }
        let startDate = Date(timeIntervalSince1970: 1_767_225_600 + 1_800)
        let date = Date(timeIntervalSince1970: 1_767_225_600 + 600)
        try registry.schedule("session", .after(.minutes(15))) { _ in expire() }
        try registry.schedule("retry", .every(.seconds(5), repeats: .times(3))) { _ in retry() }
        try registry.schedule(
            "report",
            .every(.hours(1), first: .at(TimerDeadline(timeIntervalSince1970: startDate.timeIntervalSince1970)))
        ) { tick in reports.record(tick) }
        try registry.schedule("alarm", .at(TimerDeadline(timeIntervalSince1970: date.timeIntervalSince1970))) { _ in
            ring()
        }
        clock.advance(by: .seconds(15))
        #expect(retries.value == 3)
        #expect(!registry.contains("retry"))
        clock.advance(by: .seconds(600 - 15))
        #expect(rings.value == 1)
        clock.advance(by: .seconds(900 - 600))
        #expect(expired.value == 1)
        #expect(reports.count == 0)
        clock.advance(by: .seconds(1_800 - 900))
        #expect(reports.count == 1)
        clock.advance(by: .hours(1))
        #expect(reports.count == 2)
        #expect(registry.keys == ["report"])
    }

    @Test func pauseResumeCancelExistsAndRemaining() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let log = TickLog()
        try registry.schedule("poll", .every(.seconds(30)), log.record)
        clock.advance(by: .seconds(10))
        #expect(registry.timeUntilNextTick(of: "poll") == .seconds(20))
        registry.pause("poll")
        clock.advance(by: .seconds(100))
        #expect(registry.timeUntilNextTick(of: "poll") == .seconds(20))
        registry.resume("poll")
        clock.advance(by: .seconds(20))
        #expect(log.count == 1)
        #expect(registry.contains("poll"))
        registry.cancel("poll")
        #expect(!registry.contains("poll"))
    }

    @Test func theBackgroundGapNeedsNoCode() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let resendEnabled = SaveCounter()
        @Sendable func enableResend() { resendEnabled.increment() }
        try registry.schedule("code", .after(.seconds(60), clock: .continuous)) { _ in enableResend() }
        clock.advance(by: .seconds(10))
        clock.suspend(for: .seconds(49))  // the app sits in the background
        #expect(resendEnabled.value == 0)
        clock.advance(by: .seconds(1))
        #expect(resendEnabled.value == 1)
    }

    @Test func aTargetEntryEndsWithItsTarget() throws {
        final class Screen: Sendable {
            let reloads = SaveCounter()
            func reload() { reloads.increment() }
        }
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        var screen: Screen? = Screen()
        let reloads = try #require(screen?.reloads)
        try registry.schedule(
            "refresh", .every(.seconds(10)),
            handler: .weak(try #require(screen)) { owner, _ in
                owner.reload()
            })
        clock.advance(by: .seconds(10))
        screen = nil
        clock.advance(by: .seconds(30))
        #expect(reloads.value == 1)
        #expect(!registry.contains("refresh"))
    }

    @Test func firingAOneShotNowEndsIt() throws {
        let clock = VirtualClock()
        let fired = SaveCounter()
        let timer = try TempoTimer(.after(.seconds(10)), scheduler: clock) { _ in fired.increment() }.start()
        try timer.reschedule(after: .zero)
        clock.advance(by: .zero)
        #expect(fired.value == 1)
        #expect(timer.state == .finished)
        clock.advance(by: .seconds(10))
        #expect(fired.value == 1)
        // `fire()` is an extra manual run: the pending tick still fires.
        let other = try TempoTimer(.after(.seconds(10)), scheduler: clock) { _ in fired.increment() }.start()
        other.fire()
        clock.advance(by: .zero)
        #expect(fired.value == 2)
        clock.advance(by: .seconds(10))
        #expect(fired.value == 3)
    }
}
