import Dispatch
import Tempo
import TempoTesting
import Testing

/// The Tempo column of the "Migrating from DispatchSourceTimer" article, compiled and run.
@Suite struct MigrationFromDispatchGuideTests {
    @Test func aRepeatingSourceOnAQueue() throws {
        let clock = VirtualClock()
        let queue = DispatchQueue(label: "poller")
        let polls = SaveCounter()
        @Sendable func poll() {
            dispatchPrecondition(condition: .onQueue(queue))
            polls.increment()
        }
        let timer = try TempoTimer(
            .every(.seconds(1), leeway: .milliseconds(10), delivery: .queue(queue)), scheduler: clock
        ) { _ in poll() }.start()
        clock.advance(by: .milliseconds(999))
        #expect(polls.value == 0)
        clock.advance(by: .milliseconds(1))
        #expect(polls.value == 1)
        timer.pause()
        timer.pause()
        clock.advance(by: .seconds(10))
        timer.resume()
        timer.resume()
        clock.advance(by: .seconds(1))
        #expect(polls.value == 2)
        try timer.reset(interval: .seconds(2))
        clock.advance(by: .seconds(2))
        #expect(polls.value == 3)
        timer.cancel()
        timer.cancel()
        clock.advance(by: .seconds(10))
        #expect(polls.value == 3)
    }

    @Test func oneShotsAfterADelayAtADispatchTimeAndAtAWallTime() throws {
        let clock = VirtualClock()
        let queue = DispatchQueue(label: "one-shot")
        let fired = SaveCounter()
        try TempoTimer(.after(.seconds(5), delivery: .queue(queue)), scheduler: clock) { _ in fired.increment() }
            .start()
        let deadline = DispatchTime(uptimeNanoseconds: 7_000_000_000)
        try TempoTimer(.at(TimerDeadline(deadline)), scheduler: clock) { _ in fired.increment() }.start()
        let wallDeadline = try DispatchWallTime(VirtualClock.defaultWallStart + .seconds(10))
        try TempoTimer(.at(TimerDeadline(wallDeadline)), scheduler: clock) { _ in
            fired.increment()
        }.start()
        clock.advance(by: .seconds(5))
        #expect(fired.value == 1)
        clock.advance(by: .seconds(2))
        #expect(fired.value == 2)
        clock.advance(by: .seconds(3))
        #expect(fired.value == 3)
    }

    @Test func theBridgesMatchTheRealClocks() throws {
        let before = SystemScheduler.shared.now(.monotonic)
        let instant = try TimerInstant(DispatchTime.now())
        #expect(instant >= before && instant <= SystemScheduler.shared.now(.monotonic))
        #expect(
            try DispatchTime(instant).uptimeNanoseconds == UInt64(instant.offset.components.seconds) * 1_000_000_000
                + UInt64(instant.offset.components.attoseconds / 1_000_000_000))
    }

    @Test func aHandleReplacesTheThreadSafeWrapperAndItsDeinit() throws {
        final class RepeatingTimer: Sendable {
            let fired = SaveCounter()
            let timer: TimerHandle
            init(clock: VirtualClock) throws {
                let fired = fired
                timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in fired.increment() }.start()
                    .cancelledOnRelease()
            }
        }
        let clock = VirtualClock()
        var wrapper: RepeatingTimer? = try RepeatingTimer(clock: clock)
        let fired = try #require(wrapper?.fired)
        wrapper?.timer.timer.pause()
        wrapper?.timer.timer.resume()
        clock.advance(by: .seconds(2))
        #expect(fired.value == 2)
        wrapper = nil
        clock.advance(by: .seconds(2))
        #expect(fired.value == 2)
        #expect(clock.pendingCount == 0)
    }

    @Test func aWeakSelfHandlerBecomesATargetTimer() throws {
        final class Owner: Sendable {
            let ticks = SaveCounter()
            func tick() { ticks.increment() }
        }
        let clock = VirtualClock()
        let owner = Owner()
        let timer = try TempoTimer(
            .every(.seconds(1)), scheduler: clock, handler: .weak(owner) { target, _ in target.tick() })
        timer.start()
        clock.advance(by: .seconds(3))
        #expect(owner.ticks.value == 3)
        timer.cancel()
    }

    @Test func aMainQueueHandlerBecomesAMainActorHandler() async throws {
        let clock = VirtualClock()
        let model = TickCounterModel()
        let timer = try TempoTimer(
            .every(.seconds(1)), scheduler: clock,
            handler: .mainActor { tick in
                model.record(tick)
            }
        ).start()
        clock.advance(by: .seconds(1))
        #expect(await model.ticks == [1])
        timer.cancel()
    }
}
