import Tempo
import TempoTesting
import Testing

/// Late ticks are produced by suspending the machine under a continuous-clock timer: the clock moves on
/// while nothing runs, and on waking every slot that passed is due at once.
@Suite struct TimerLatePolicyTests {
    func runSuspended(policy: LateTickPolicy, repeats: TimerRepeats = .forever) throws -> (VirtualClock, TickLog) {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(
            .every(.seconds(1), repeats: repeats, latePolicy: policy, clock: .continuous), scheduler: clock, log.record)
        timer.start()
        clock.suspend(for: .milliseconds(3_500))
        return (clock, log)
    }

    @Test func coalesceDeliversOneTickForTheLatestSlotAndCountsTheMissed() throws {
        let (clock, log) = try runSuspended(policy: .coalesce)
        #expect(log.indices == [3])
        #expect(log.all.first?.missed == 2)
        #expect(log.all.first?.lateness == .milliseconds(500))
        clock.advance(by: .milliseconds(499))
        #expect(log.count == 1)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [3, 4])
        #expect(log.all.last?.missed == 0)
    }

    @Test func burstDeliversEveryMissedSlotInOrderWithItsOwnLateness() throws {
        let (clock, log) = try runSuspended(policy: .burst)
        #expect(log.indices == [1, 2, 3])
        #expect(log.all.map(\.lateness) == [.milliseconds(2_500), .milliseconds(1_500), .milliseconds(500)])
        #expect(log.all.allSatisfy { $0.missed == 0 })
        clock.advance(by: .milliseconds(500))
        #expect(log.indices == [1, 2, 3, 4])
    }

    @Test func skipDropsMissedSlotsAndRealignsToTheGrid() throws {
        let (clock, log) = try runSuspended(policy: .skip)
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(499))
        #expect(log.count == 0)
        clock.advance(by: .milliseconds(1))
        #expect(log.indices == [4])
        #expect(log.all.first?.missed == 3)
        #expect(log.all.first?.lateness == .zero)
        clock.advance(by: .seconds(1))
        #expect(log.all.last?.missed == 0)
    }

    @Test func aTickLessThanOneIntervalLateIsDeliveredUnderEveryPolicy() throws {
        for policy in LateTickPolicy.allCases {
            let clock = VirtualClock()
            let log = TickLog()
            let timer = try TempoTimer(
                .every(.seconds(1), latePolicy: policy, clock: .continuous), scheduler: clock, log.record)
            timer.start()
            clock.suspend(for: .milliseconds(1_900))
            #expect(log.indices == [1], "policy \(policy)")
            #expect(log.all.first?.missed == 0)
        }
    }

    @Test func missedSlotsCountAgainstAFiniteTimer() throws {
        let (_, coalesced) = try runSuspended(policy: .coalesce, repeats: .times(2))
        #expect(coalesced.indices == [2])
        let (_, burst) = try runSuspended(policy: .burst, repeats: .times(2))
        #expect(burst.indices == [1, 2])
        let (clock, skipped) = try runSuspended(policy: .skip, repeats: .times(2))
        #expect(skipped.count == 0)
        #expect(clock.pendingCount == 0)
    }

    @Test func aHugeBurstIsDeliveredLazilyWithoutBlowingUpMemory() throws {
        let clock = VirtualClock()
        let counter = TickLog()
        let timer = try TempoTimer(
            .every(.milliseconds(1), repeats: .times(200_000), latePolicy: .burst, clock: .continuous), scheduler: clock
        ) { tick in
            if tick.index % 50_000 == 0 { counter.record(tick) }
        }
        timer.start()
        clock.suspend(for: .seconds(500))
        #expect(counter.indices == [50_000, 100_000, 150_000, 200_000])
        #expect(timer.fireCount == 200_000)
        #expect(timer.state == .finished)
    }
}

@Suite struct SlowHandlerTests {
    /// The handler moves the virtual clock by 3.5 intervals, as a slow handler does on real time.
    func runSlowHandler(policy: LateTickPolicy) throws -> TickLog {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.seconds(1), latePolicy: policy), scheduler: clock) { tick in
            log.record(tick)
            if tick.index == 1 { clock.advance(by: .milliseconds(3_500)) }
        }
        timer.start()
        clock.advance(by: .seconds(1))
        clock.advance(by: .zero)
        timer.cancel()
        return log
    }

    @Test func aSlowHandlerUnderCoalesceGetsOneTickNotABacklog() throws {
        let log = try runSlowHandler(policy: .coalesce)
        #expect(log.indices == [1, 4])
        #expect(log.all.last?.missed == 2)
        #expect(log.all.last?.lateness == .milliseconds(500))
    }

    @Test func aSlowHandlerUnderBurstGetsEverySlot() throws {
        let log = try runSlowHandler(policy: .burst)
        #expect(log.indices == [1, 2, 3, 4])
    }

    @Test func aSlowHandlerUnderSkipGetsNothingUntilTheGrid() throws {
        let log = try runSlowHandler(policy: .skip)
        #expect(log.indices == [1])
    }
}

/// A stall is never invisible (issue #12): a coalesced tick is due at the latest slot, so its lateness is small,
/// but `overdue` measures from the earliest slot it stands for.
@Suite struct TimerOverdueTests {
    @Test func aCoalescedTickReportsTheWholeStallInOverdue() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(
            .every(.milliseconds(10), delivery: .immediate, clock: .wall), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .milliseconds(10))
        #expect(log.all.last?.overdue == .zero)
        // The wall clock jumps from 10 ms to 2,015 ms: slots due at 20, 30, ... 2,010 ms (200) are due at once.
        clock.adjustWallClock(by: .milliseconds(2_005))
        let tick = try #require(log.all.last)
        #expect(tick.missed == 199)
        #expect(tick.lateness == .milliseconds(5))  // against the slot due at 2,010 ms
        #expect(tick.overdue == .milliseconds(1_995))  // against the earliest slot it stands for, due at 20 ms
        timer.cancel()
    }

    @Test func aPunctualTickHasOverdueEqualToLateness() {
        let tick = TimerTick(index: 1, due: .zero, lateness: .microseconds(3))
        #expect(tick.overdue == .microseconds(3))
    }
}
