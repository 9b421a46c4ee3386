import Tempo
import TempoTesting
import Testing

/// The Tempo column of the "Migrating from Repeat" article, compiled and run.
@Suite struct MigrationFromRepeatGuideTests {
    @Test func everyAndOnceStartAtOnce() throws {
        let clock = VirtualClock()
        let polls = SaveCounter()
        let expiries = SaveCounter()
        @Sendable func poll() { polls.increment() }
        @Sendable func expire() { expiries.increment() }
        let repeating = try TempoTimer(.every(.seconds(5)), scheduler: clock) { timer, tick in poll() }.start()
        try TempoTimer(.after(.seconds(5)), scheduler: clock) { _ in expire() }.start()
        clock.advance(by: .seconds(10))
        #expect(polls.value == 2)
        #expect(expiries.value == 1)
        repeating.cancel()
    }

    @Test func aOneShotThatResetsItselfRunsAgain() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.after(.seconds(2)), scheduler: clock) { timer, tick in
            log.record(tick)
            try? timer.reset()
        }.start()
        clock.advance(by: .seconds(6))
        #expect(log.count == 3)
        timer.cancel()
    }

    @Test func aOneShotResetWithRestartIsRescheduleAfterNotRestart() throws {
        let clock = VirtualClock()
        let log = TickLog()
        // Repeat's `timer.reset(.seconds(2), restart: true)` on a one-shot: it fires again 2 s later.
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock) { timer, tick in
            log.record(tick)
            if tick.index == 1 { try? timer.reschedule(after: .seconds(2)) }
        }.start()
        clock.advance(by: .seconds(1))
        #expect(log.count == 1)
        clock.advance(by: .milliseconds(1_999))
        #expect(log.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(log.count == 2)
        // The old row's port: a one-shot has no interval, so restart(interval:) throws (and `try?` lost the fire).
        let error = #expect(throws: TempoError.self) { try timer.restart(interval: .seconds(2)) }
        #expect(error?.code == .invalidInterval)
    }

    @Test func anIdleFiniteTimerWithObservers() throws {
        let clock = VirtualClock()
        let steps = SaveCounter()
        let logs = SaveCounter()
        @Sendable func step() { steps.increment() }
        @Sendable func log() { logs.increment() }
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(10)), scheduler: clock) { _ in step() }
        clock.advance(by: .seconds(3))
        #expect(steps.value == 0)
        timer.start()
        let token = timer.addObserver { _ in log() }
        clock.advance(by: .seconds(2))
        #expect(steps.value == 2 && logs.value == 2)
        #expect(timer.removeObserver(token))
        clock.advance(by: .seconds(1))
        #expect(steps.value == 3 && logs.value == 2)
        #expect(timer.state == .running)

        #expect(timer.fire())
        timer.pause()
        #expect(steps.value == 4)
        #expect(timer.state == .paused)
        // Repeat's `reset(_:restart: true)` runs a paused timer again: `restart(interval:)`, with no resume().
        try timer.restart(interval: .seconds(2))
        #expect(timer.state == .running)
        clock.advance(by: .seconds(2))
        #expect(steps.value == 5)
        timer.pause()
        timer.resume()
        #expect(timer.state == .running)

        timer.removeAllObservers()
        timer.cancel()
        #expect(timer.state == .cancelled)
        clock.advance(by: .seconds(10))
        #expect(steps.value == 5)
    }

    @Test func aStoredTimerStopsWithItsOwner() throws {
        final class Owner: Sendable {
            let polls = SaveCounter()
            let timer: TimerHandle
            init(clock: VirtualClock) throws {
                let polls = polls
                timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in polls.increment() }.start()
                    .cancelledOnRelease()
            }
        }
        let clock = VirtualClock()
        var owner: Owner? = try Owner(clock: clock)
        let polls = try #require(owner?.polls)
        clock.advance(by: .seconds(1))
        owner = nil
        clock.advance(by: .seconds(5))
        #expect(polls.value == 1)
    }

    @Test func debouncerAndThrottler() throws {
        let clock = VirtualClock()
        let searches = SaveCounter()
        let saves = SaveCounter()
        @Sendable func search() { searches.increment() }
        @Sendable func save() { saves.increment() }
        let debouncer = try Debouncer(delay: .milliseconds(300), scheduler: clock) { search() }
        debouncer.call()
        debouncer.call()
        clock.advance(by: .milliseconds(300))
        #expect(searches.value == 1)
        let throttler = try Throttler(every: .seconds(1), scheduler: clock) { save() }
        throttler.call()
        throttler.call()
        clock.advance(by: .seconds(1))
        #expect(saves.value == 1)  // leading edge, like Repeat: the second call was dropped
    }

    @Test func timersAreHashableByIdentity() throws {
        let clock = VirtualClock()
        let a = try TempoTimer(.every(.seconds(1)), scheduler: clock)
        let b = try TempoTimer(.every(.seconds(1)), scheduler: clock)
        let names: [TempoTimer: String] = [a: "a", b: "b"]
        #expect(names[a] == "a" && Set([a, b, a]).count == 2)
    }
}
