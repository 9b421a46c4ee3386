import Tempo
import TempoTesting
import Testing

/// Values at the edge of what is accepted, and instants in the past: each behaves as documented, with no
/// trap, no clamp and no crash inside libdispatch.
@Suite struct EdgeValueTests {
    @Test func intervalsAndLeewaysOneAttosecondPastEachLimitAreRejected() throws {
        let attosecond = Duration(attoseconds: 1)
        for interval in [Duration.nanoseconds(1), TempoError.maximumDuration] {
            #expect(throws: Never.self) { try TempoTimer(.every(interval)) }
        }
        for interval in [Duration.nanoseconds(1) - attosecond, TempoError.maximumDuration + attosecond] {
            #expect(throws: TempoError.self) { try TempoTimer(.every(interval)) }
        }
        for leeway in [Duration.zero, TempoError.maximumDuration] {
            #expect(throws: Never.self) { try TempoTimer(.every(.seconds(1), leeway: leeway)) }
        }
        for leeway in [.zero - attosecond, TempoError.maximumDuration + attosecond] {
            #expect(throws: TempoError.self) { try TempoTimer(.every(.seconds(1), leeway: leeway)) }
        }
    }

    @Test func theLongestIntervalIsAcceptedAndTicksExactlyThen() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(TempoError.maximumDuration, repeats: .times(2)), scheduler: clock, log.record)
        timer.start()
        #expect(timer.timeUntilNextTick == TempoError.maximumDuration)
        clock.advance(by: TempoError.maximumDuration - .nanoseconds(1))
        #expect(log.count == 0)
        clock.advance(by: .nanoseconds(1))
        #expect(log.indices == [1])
        timer.cancel()
        let real = try TempoTimer(.every(TempoError.maximumDuration, leeway: TempoError.maximumDuration)) { _ in }
        real.start()
        #expect(real.state == .running)
        real.cancel()
    }

    @Test func theMaximumLeewayIsAcceptedAndVirtualTimeStillTicksOnTime() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(
            .every(.seconds(1), leeway: TempoError.maximumDuration), scheduler: clock, log.record)
        try timer.setLeeway(TempoError.maximumDuration)
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(log.all.map(\.lateness) == [.zero])
        #expect(timer.leeway == TempoError.maximumDuration)
        timer.cancel()
    }

    @Test func aOneNanosecondIntervalTicksEveryNanosecond() throws {
        let clock = VirtualClock()
        let log = TickLog()
        let timer = try TempoTimer(.every(.nanoseconds(1), latePolicy: .burst), scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .nanoseconds(5))
        #expect(log.indices == [1, 2, 3, 4, 5])
        timer.cancel()
    }

    @Test func aOneShotAtTheCurrentInstantIsAcceptedAndFiresAtOnce() throws {
        let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(5)))
        let log = TickLog()
        try TempoTimer(.at(.monotonic(clock.now(.monotonic))), scheduler: clock, log.record).start()
        clock.advance(by: .zero)
        #expect(log.all.map(\.lateness) == [.zero])
    }

    @Test(arguments: LateTickPolicy.allCases)
    func aFirstTickInThePastIsALateTick(policy: LateTickPolicy) throws {
        let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(1_000)))
        let log = TickLog()
        let timer = try TempoTimer(
            .every(.seconds(1), repeats: .times(2_000), first: .at(.monotonic(.zero)), latePolicy: policy),
            scheduler: clock, log.record)
        timer.start()
        clock.advance(by: .zero)
        switch policy.kind {
        case .coalesce: #expect(log.all.map(\.missed) == [1_000])
        case .burst: #expect(log.count == 1_001)
        case .skip: #expect(log.count == 0)
        }
        #expect(timer.remainingCount == 999)
        timer.cancel()
    }

    @Test(arguments: LateTickPolicy.allCases)
    func aGridAnchoredAsFarBackAsAllowedDoesNotTrap(policy: LateTickPolicy) throws {
        // Almost `Int.max` slots of 1 ns have passed since the earliest allowed first tick, and the slot counter
        // does not overflow. Instants further back are rejected (`BadInput` rows): before that validation,
        // `.at(TimerInstant(offset: .seconds(Int64.min)))` with a 1 ns interval trapped in `nextSlot = last + 1`.
        let limit = TempoError.maximumDuration / 2
        let clock = VirtualClock(monotonic: TimerInstant(offset: limit - .nanoseconds(1)))
        let log = TickLog()
        let box = WeakTimerBox()
        let timer = try TempoTimer(
            .every(.nanoseconds(1), first: .at(.monotonic(TimerInstant(offset: .zero - limit))), latePolicy: policy),
            scheduler: clock
        ) { tick in
            log.record(tick)
            if log.count == 3 { box.timer?.cancel() }
        }
        box.timer = timer
        timer.start()
        clock.advance(by: .zero)
        timer.cancel()
        switch policy.kind {
        case .coalesce: #expect(log.all.map(\.missed) == [Int.max - 1])
        case .burst:
            // Far more than `maximumBurst` slots are due: the burst starts at the oldest slot it holds and the
            // first tick reports every older slot as missed.
            let first = log.indices.first ?? 0
            #expect(log.indices == [first, first + 1, first + 2])
            #expect(log.all.first?.missed == first - 1)
            #expect(first - 1 > Int.max - 1 - LateTickPolicy.maximumBurst - 2)
        case .skip: #expect(log.count == 0)
        }
    }

    @Test func longFractionsAndTheLargestDurationParseExactly() throws {
        // Before the fix these trapped on Int128 overflow (and crashed `tempo tick --every`).
        #expect(
            try DurationParser.parse("1.123456789012345678h") == Duration(attoseconds: 4_044_444_440_444_444_440_800))
        #expect(
            try DurationParser.parse("0.999999999999999999d") == Duration(attoseconds: 86_399_999_999_999_999_913_600))
        #expect(try DurationParser.parse("9223372036.854775807s") == TempoError.maximumDuration)
        #expect(try DurationParser.parse("0.000000001s") == .nanoseconds(1))
    }

    @Test func theLargestCountIsAccepted() throws {
        let timer = try TempoTimer(.every(.seconds(1), repeats: .times(Int.max)), scheduler: VirtualClock())
        #expect(timer.remainingCount == Int.max)
        let delayed = try TempoTimer(
            .every(.seconds(1), first: .after(TempoError.maximumDuration)), scheduler: VirtualClock())
        delayed.start()
        #expect(delayed.timeUntilNextTick == TempoError.maximumDuration)
        delayed.cancel()
    }

    @Test func movingVirtualTimeBackwardsIsADocumentedPrecondition() async {
        await #expect(processExitsWith: .failure) {
            VirtualClock().advance(by: .nanoseconds(-1))
        }
        await #expect(processExitsWith: .failure) {
            VirtualClock().suspend(for: .seconds(-1))
        }
    }
}
