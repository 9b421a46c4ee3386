import Foundation
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// The repros of issue #17 (crashes on extreme input found by fuzzing), each now a typed error or the
/// documented behaviour.
@Suite struct ArithmeticEdgeTests {
    // MARK: F1, F7: restoring a Countdown snapshot

    @Test func f1RestoringASnapshotWithAnExtremeWallDeadlineThrows() throws {
        let json = #"""
            {"phase":"running","duration":[1,0],"period":[1,0],"remaining":[0,0],"wallDeadline":{"offset":[-9223372036854775808,0]}}
            """#
        let snapshot = try JSONDecoder().decode(Countdown.Snapshot.self, from: Data(json.utf8))
        // A deadline far in the past: the countdown finishes at once (how far past does not matter).
        let clock = VirtualClock()
        let finished = TempoMutex(0)
        let countdown = try Countdown(
            restoring: snapshot, scheduler: clock, onTick: { _ in }, onFinish: { finished.withLock { $0 += 1 } })
        clock.advance(by: .zero)
        #expect(countdown.phase == .finished)
        #expect(finished.withLock { $0 } == 1)
        // A deadline beyond any Duration from now: a typed error.
        for offset in [Duration(attoseconds: .max), .seconds(Int64.max), TempoError.maximumDuration * 2] {
            var far = snapshot
            far.wallDeadline = TimerInstant(offset: offset)
            #expect(throws: TempoError.self) {
                _ = try Countdown(restoring: far, scheduler: VirtualClock(), onTick: { _ in }, onFinish: {})
            }
        }
    }

    @Test func f1ADeadlineThreeHundredYearsOutWithANanosecondPeriodIsRejected() {
        let clock = VirtualClock()
        let snapshot = Countdown.Snapshot(
            phase: .running, duration: .seconds(1), period: .nanoseconds(1), remaining: .zero,
            wallDeadline: clock.now(.wall) + .seconds(300 * 365 * 86_400))
        #expect(throws: TempoError.self) {
            _ = try Countdown(restoring: snapshot, scheduler: clock, onTick: { _ in }, onFinish: {})
        }
    }

    @Test func f7ARemainingTimeAboveTheMaximumIsRejectedButOneAboveTheDurationIsNot() throws {
        let clock = VirtualClock()
        var snapshot = Countdown.Snapshot(
            phase: .paused, duration: .seconds(1), period: .seconds(1), remaining: .seconds(5000), wallDeadline: nil)
        // add(_:) can grow the time left past the duration, so a snapshot may record it.
        let restored = try Countdown(restoring: snapshot, scheduler: clock, onTick: { _ in }, onFinish: {})
        #expect(restored.remaining == .seconds(5000))
        snapshot.remaining = TempoError.maximumDuration + .nanoseconds(1)
        #expect(throws: TempoError.self) {
            _ = try Countdown(restoring: snapshot, scheduler: clock, onTick: { _ in }, onFinish: {})
        }
        snapshot.remaining = TempoError.maximumDuration
        let paused = try Countdown(restoring: snapshot, scheduler: clock, onTick: { _ in }, onFinish: {})
        paused.start()  // trapped in `start()` before the fix
        #expect(paused.phase == .running)
        #expect(throws: TempoError.self) { try paused.add(.nanoseconds(1)) }
    }

    // MARK: F2: Countdown.add past the maximum

    @Test func f2AddingBeyondTheMaximumThrowsAndLeavesTheCountdownUnchanged() throws {
        let clock = VirtualClock()
        let countdown = try Countdown(
            duration: .seconds(1), every: .nanoseconds(1), scheduler: clock, onTick: { _ in }, onFinish: {})
        #expect(try countdown.add(TempoError.maximumDuration - .seconds(1)))
        #expect(throws: TempoError.self) { try countdown.add(TempoError.maximumDuration) }
        #expect(countdown.remaining == TempoError.maximumDuration)
        countdown.start()  // a precondition failure before the fix
        #expect(countdown.phase == .running)
        #expect(throws: TempoError.self) { try countdown.add(.seconds(1)) }
        clock.advance(by: .nanoseconds(10))  // ten 1 ns ticks: ten nanoseconds of room again
        #expect(throws: TempoError.self) { try countdown.add(.nanoseconds(11)) }
        #expect(try countdown.add(.nanoseconds(10)))
        countdown.cancel()
    }

    // MARK: F3, F6, F8: TimingWheel

    @Test func f3SchedulingAtAnInstantBeyondTheWheelsRangeThrows() throws {
        let wheel = try TimingWheel(scheduler: VirtualClock(monotonic: TimerInstant(offset: .seconds(1))))
        for offset in [Duration(attoseconds: .min), Duration(attoseconds: .max), .seconds(Int64.min)] {
            let deadline = TimerInstant(offset: offset)
            #expect(throws: TempoError.self) { _ = try wheel.schedule(at: deadline) {} }
            let handle = try wheel.schedule(after: .seconds(1)) {}
            #expect(throws: TempoError.self) { _ = try wheel.reschedule(handle, at: deadline) }
            #expect(wheel.cancel(handle))
        }
    }

    @Test func f6AHandleFromAnotherWheelIsANoOp() throws {
        let clock = VirtualClock()
        let first = try TimingWheel(scheduler: clock)
        let second = try TimingWheel(scheduler: clock)
        let mine = try first.schedule(after: .seconds(1)) {}
        let theirs = try second.schedule(after: .seconds(1)) {}
        #expect(!first.cancel(theirs))
        #expect(!first.isArmed(theirs))
        #expect(first.deadline(of: theirs) == nil)
        #expect(try !first.reschedule(theirs, after: .seconds(5)))
        #expect(first.isArmed(mine))
        #expect(second.isArmed(theirs))
        #expect(first.count == 1 && second.count == 1)
    }

    @Test func f8AnInitialCapacityAboveTheBoundIsRejectedBeforeAllocating() {
        for capacity in [(1 << 31) - 1, TimingWheel.Configuration.maximumInitialCapacity + 1, Int.max] {
            #expect(throws: TempoError.self) {
                _ = try TimingWheel(configuration: .init(initialCapacity: capacity), scheduler: VirtualClock())
            }
        }
    }

    // MARK: F4, F5: slot numbers past Int.max

    /// Counts ticks and keeps the first two and the last, so that a million-tick burst costs no memory here.
    private final class TickLog: Sendable {
        let state = TempoMutex<(count: Int, firstTwo: [TimerTick], last: TimerTick?)>((0, [], nil))
        func record(_ tick: TimerTick) {
            state.withLock {
                $0.count += 1
                if $0.firstTwo.count < 2 { $0.firstTwo.append(tick) }
                $0.last = tick
            }
        }
    }

    @Test(arguments: LateTickPolicy.allCases)
    func f4ATimerWhoseSlotPassesIntMaxFinishesInsteadOfTrapping(policy: LateTickPolicy) throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(
            .every(.nanoseconds(1), latePolicy: policy, delivery: .immediate, clock: .wall), scheduler: clock
        ) { tick in log.record(tick) }
        timer.start()
        clock.adjustWallClock(by: .seconds(300 * 365 * 86_400))
        clock.advance(by: .nanoseconds(1))
        clock.advance(by: .seconds(1))
        // A grid has at most Int.max slots; past them the timer has finished (documented on TempoTimer).
        #expect(timer.state == .finished)
        let (count, firstTwo, last) = log.state.withLock { ($0.count, $0.firstTwo, $0.last) }
        switch policy.kind {
        case .coalesce:
            #expect(count == 1)
            #expect(last?.index == Int.max)
            #expect(last?.missed == Int.max - 1)
        case .burst:
            // A burst is bounded: the slots before the last `maximumBurst` are reported as missed, not delivered.
            #expect(count == LateTickPolicy.maximumBurst)
            #expect(firstTwo.first?.missed == Int.max - LateTickPolicy.maximumBurst)
            #expect(firstTwo.last?.missed == 0)
            #expect(last?.index == Int.max)
        case .skip:
            #expect(count == 0)  // every due slot was dropped, and no slot is left to deliver
        }
        #expect(timer.remainingCount == nil)
        timer.cancel()
    }

    @Test func f5AnAsyncSequenceWhoseSlotPassesIntMaxEndsInsteadOfTrapping() async throws {
        let clock = VirtualClock()
        let sequence = try AsyncTickSequence(every: .nanoseconds(1), clock: clock)
        let task = Task {
            var indices: [Int] = []
            var iterator = sequence.makeAsyncIterator()
            while indices.count < 4, let tick = await iterator.next() { indices.append(tick.index) }
            return indices
        }
        try #require(await clock.waitForPending())
        clock.advance(by: .seconds(300 * 365 * 86_400))
        let indices = await task.value
        // The first tick is at 1 ns or already coalesced into the last slot (the task may resume after the jump);
        // either way the grid's last slot is delivered once and the sequence then ends instead of trapping.
        #expect(indices.last == Int.max)
        #expect(indices.count <= 2)
        #expect(indices == indices.sorted())
    }

    // MARK: Messages

    @Test func theMaximumAndOneNanosecondMoreReadDifferently() {
        do {
            try TempoError.validateInterval(TempoError.maximumDuration + .nanoseconds(1))
            Issue.record("no error")
        } catch {
            #expect(error.message.contains("9223372036.854775808 seconds"))
            #expect(error.message.contains("maximum of 9223372036.854775807 seconds"))
        }
    }

    @Test func aHugeRejectedDurationStringIsNotCopiedIntoTheError() {
        let text = String(repeating: "9", count: 1_000_000) + "x"
        do {
            _ = try DurationParser.parse(text)
            Issue.record("no error")
        } catch {
            #expect(error.message.count < 400)
            #expect(error.value.count < 200)
            #expect(error.message.contains("1000001 characters"))
        }
    }
}
