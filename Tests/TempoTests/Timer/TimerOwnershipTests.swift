import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

final class Owner: Sendable {
    let ticks = TempoMutex(0)
}

@Suite struct TimerOwnershipTests {
    @Test func aRunningTimerIsKeptAliveByItsSchedulerUntilItFinishes() throws {
        let clock = VirtualClock()
        let log = TickLog()
        weak var weakTimer: TempoTimer?
        do {
            let timer = try TempoTimer(.every(.seconds(1), repeats: .times(2)), scheduler: clock, log.record)
            timer.start()
            weakTimer = timer
        }
        #expect(weakTimer != nil)
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1])
        clock.advance(by: .seconds(1))
        #expect(log.indices == [1, 2])
        #expect(weakTimer == nil)
    }

    @Test func cancellingReleasesTheTimerAndItsHandler() throws {
        let clock = VirtualClock()
        weak var weakTimer: TempoTimer?
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in
                owner.ticks.withLock { $0 += 1 }
            }
            timer.start()
            weakTimer = timer
            timer.cancel()
        }
        #expect(weakTimer == nil)
        #expect(weakOwner == nil)
    }

    @Test func weakTargetIsPassedToTheHandlerAndNotRetained() throws {
        let clock = VirtualClock()
        var owner: Owner? = Owner()
        weak let weakOwner = owner
        let timer = try TempoTimer(
            .every(.seconds(1)), scheduler: clock,
            handler: .weak(owner!) { owner, _ in
                owner.ticks.withLock { $0 += 1 }
            })
        timer.start()
        clock.advance(by: .seconds(2))
        #expect(owner?.ticks.withLock { $0 } == 2)
        owner = nil
        #expect(weakOwner == nil)
        #expect(timer.state == .running)
        clock.advance(by: .milliseconds(999))
        #expect(timer.state == .running)
        clock.advance(by: .milliseconds(1))
        #expect(timer.state == .cancelled)
        #expect(timer.fireCount == 2)
        #expect(clock.pendingCount == 0)
    }

    @Test func aWeakTargetTimerNobodyHoldsEndsWhenTheTargetDies() throws {
        let clock = VirtualClock()
        weak var weakTimer: TempoTimer?
        var owner: Owner? = Owner()
        do {
            let timer = try TempoTimer(
                .every(.seconds(1)), scheduler: clock,
                handler: .weak(owner!) { owner, _ in
                    owner.ticks.withLock { $0 += 1 }
                })
            timer.start()
            weakTimer = timer
        }
        clock.advance(by: .seconds(1))
        #expect(owner?.ticks.withLock { $0 } == 1)
        owner = nil
        clock.advance(by: .seconds(1))
        #expect(weakTimer == nil)
        #expect(clock.pendingCount == 0)
    }
}
