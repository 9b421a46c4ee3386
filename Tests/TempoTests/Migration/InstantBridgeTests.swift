import Dispatch
import Foundation
import Tempo
import TempoTesting
import Testing

/// Trap 5 of issue #10: instants of Dispatch, the standard library and Foundation bridge to `TimerInstant` and back.
@Suite struct InstantBridgeTests {
    @Test func dispatchTimeIsTheMonotonicClockAndRoundTrips() throws {
        let before = SystemScheduler.shared.now(.monotonic)
        let time = DispatchTime.now()
        let after = SystemScheduler.shared.now(.monotonic)
        let instant = try TimerInstant(time)
        #expect(before <= instant && instant <= after)
        #expect(try DispatchTime(instant) == time)
        // Sub-nanosecond instants round up: a deadline never comes earlier.
        let fine = TimerInstant(offset: .seconds(5) + Duration(attoseconds: 1))
        #expect(try DispatchTime(fine).uptimeNanoseconds == 5_000_000_001)
    }

    @Test func dispatchWallTimeIsTheWallClockAndRoundTrips() throws {
        let before = SystemScheduler.shared.now(.wall)
        let time = DispatchWallTime.now()
        let after = SystemScheduler.shared.now(.wall)
        let instant = try TimerInstant(time)
        #expect(before <= instant && instant <= after)
        let date = TimerInstant(offset: .seconds(1_767_225_600) + .nanoseconds(123))
        #expect(try TimerInstant(DispatchWallTime(date)) == date)
    }

    @Test func standardLibraryInstantsMatchTempoClocksExactly() {
        let beforeC = SystemScheduler.shared.now(.continuous)
        let continuous = TimerInstant(ContinuousClock.now)
        let afterC = SystemScheduler.shared.now(.continuous)
        #expect(beforeC <= continuous && continuous <= afterC)
        let beforeS = SystemScheduler.shared.now(.monotonic)
        let suspending = TimerInstant(SuspendingClock.now)
        let afterS = SystemScheduler.shared.now(.monotonic)
        #expect(beforeS <= suspending && suspending <= afterS)
        let odd = TimerInstant(offset: .seconds(12_345) + Duration(attoseconds: 7))
        #expect(TimerInstant(ContinuousClock.Instant(odd)) == odd)
        #expect(TimerInstant(SuspendingClock.Instant(odd)) == odd)
        let now = ContinuousClock.now
        #expect(ContinuousClock.Instant(TimerInstant(now)) == now)
        #expect(ContinuousClock.Instant(odd + .seconds(2)) - ContinuousClock.Instant(odd) == .seconds(2))
    }

    @Test func dateBridgesThroughSecondsSince1970() throws {
        let date = Date(timeIntervalSince1970: 1_767_225_600.25)
        let instant = try TimerInstant(timeIntervalSince1970: date.timeIntervalSince1970)
        #expect(instant == VirtualClock.defaultWallStart + .milliseconds(250))
        #expect(Date(timeIntervalSince1970: instant.timeIntervalSince1970) == date)
        #expect(try TimerInstant(timeIntervalSince1970: -86_400) == TimerInstant(offset: .seconds(-86_400)))
        let nowDate = Date()
        let nowInstant = try TimerInstant(timeIntervalSince1970: nowDate.timeIntervalSince1970)
        let gap = nowInstant.offset - SystemScheduler.shared.now(.wall).offset
        #expect(gap > .seconds(-60) && gap < .seconds(60))
    }

    @Test func aWallTimerFiresAtADate() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let nineAM = Date(timeIntervalSince1970: 1_767_225_600 + 9 * 3_600)
        let deadline = try TimerInstant(timeIntervalSince1970: nineAM.timeIntervalSince1970)
        try TempoTimer(.at(TimerDeadline(deadline, clock: .wall)), scheduler: clock, log.record).start()
        clock.adjustWallClock(by: .hours(9) - .nanoseconds(1))
        #expect(log.count == 0)
        clock.adjustWallClock(by: .nanoseconds(1))
        #expect(log.all.map(\.due) == [deadline])
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e10, -1e10, 4.7e9])
    func unusableSecondsSince1970AreATypedError(seconds: Double) {
        let error = #expect(throws: TempoError.self) { try TimerInstant(timeIntervalSince1970: seconds) }
        #expect(error?.code == .invalidInstant)
        #expect(error?.value == "\(seconds)")
    }

    @Test func instantsDispatchCannotHoldAreATypedError() {
        for instant in [
            TimerInstant.zero, TimerInstant(offset: .seconds(-1)), TimerInstant(offset: .seconds(Int64.max)),
        ] {
            let error = #expect(throws: TempoError.self) { try DispatchTime(instant) }
            #expect(error?.code == .invalidInstant)
            #expect(throws: TempoError.self) { try DispatchWallTime(instant) }
        }
        #expect(throws: TempoError.self) { try TimerInstant(DispatchTime.distantFuture) }
        #expect(throws: TempoError.self) { try TimerInstant(DispatchWallTime.distantFuture) }
    }

    @Test func minutesHoursAndDaysAreExact() {
        #expect(Duration.minutes(2) == .seconds(120))
        #expect(Duration.hours(1) == .seconds(3_600))
        #expect(Duration.days(1) == .seconds(86_400))
        #expect(Duration.days(-3) == .seconds(-259_200))
        #expect(
            Duration.hours(Int64(1) << 40) == Duration(attoseconds: Int128(1 << 40) * 3_600 * 1_000_000_000_000_000_000)
        )
        #expect(Duration.minutes(UInt8(255)) == .seconds(15_300))
    }

    @Test func unitsBeyondDurationsRangeAreADocumentedPrecondition() async {
        await #expect(processExitsWith: .failure) { _ = Duration.minutes(Int.max) }
        await #expect(processExitsWith: .failure) { _ = Duration.days(UInt64.max) }
    }

    @Test func aTimerLongerThanTempoAcceptsIsATypedErrorNotATrap() {
        let error = #expect(throws: TempoError.self) {
            try TempoTimer(.every(.days(365 * 300)), scheduler: VirtualClock())
        }
        #expect(error?.code == .invalidInterval)
    }
}
