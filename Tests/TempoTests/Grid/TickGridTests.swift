import Tempo
import Testing

/// The one implementation of slots and late-tick policies (issue #11), and its arithmetic at the edges (#17).
@Suite struct TickGridTests {
    /// A tick's `overdue` is its lateness plus `missed` intervals, saturating: none missed (the common case, taken
    /// without a multiplication) gives the lateness itself at every magnitude.
    @Test func overdueAddsTheMissedIntervalsAndSaturates() {
        let largest = Duration(attoseconds: .max)
        let smallest = Duration(attoseconds: .min)
        for value in [Duration.zero, .nanoseconds(7), .seconds(-3), largest, smallest] {
            for step in [Duration.nanoseconds(1), .seconds(3_600), largest, smallest] {
                #expect(value.saturatingAdding(step, times: 0) == value)
            }
        }
        #expect(Duration.seconds(1).saturatingAdding(.milliseconds(250), times: 4) == .seconds(2))
        #expect(Duration.seconds(1).saturatingAdding(.milliseconds(250), times: -4) == .zero)
        #expect(Duration.seconds(1).saturatingAdding(largest, times: 2) == largest)
        #expect(Duration.seconds(1).saturatingAdding(largest, times: -2) == smallest)
        #expect(largest.saturatingAdding(.nanoseconds(1), times: 1) == largest)
    }

    private let second = Duration.seconds(1)
    private let start = TimerInstant(offset: .seconds(100))

    private func grid(_ policy: LateTickPolicy, count: Int? = nil, interval: Duration = .seconds(1)) -> TickGrid {
        TickGrid(first: start, interval: interval, count: count, policy: policy)
    }

    @Test func slotsAreAnchoredAtTheFirstDueInstant() {
        let grid = grid(.coalesce)
        #expect(grid.due(0) == start)
        #expect(grid.due(3) == start + .seconds(3))
        #expect(grid.due(-2) == start - .seconds(2))
        #expect(grid.slot(at: start - .nanoseconds(1)) == -1)
        #expect(grid.slot(at: start) == 0)
        #expect(grid.slot(at: start + .milliseconds(2999)) == 2)
        #expect(grid.slot(at: start + .seconds(3)) == 3)
    }

    @Test func nothingIsClaimedBeforeItIsDue() {
        var grid = grid(.burst)
        #expect(grid.claim(at: start - .nanoseconds(1)) == .notDue(start))
        #expect(grid.claim(at: start) == .deliver(first: 0, last: 0, missed: 0))
        #expect(grid.claim(at: start + .milliseconds(999)) == .notDue(start + second))
    }

    @Test func coalesceDeliversTheLatestDueSlotAndCountsTheOthers() {
        var grid = grid(.coalesce)
        #expect(grid.claim(at: start + .milliseconds(3500)) == .deliver(first: 3, last: 3, missed: 3))
        #expect(grid.nextDue == start + .seconds(4))
    }

    @Test func burstClaimsEveryDueSlotOrOneAtATime() {
        var all = grid(.burst)
        #expect(all.claim(at: start + .milliseconds(2500)) == .deliver(first: 0, last: 2, missed: 0))
        var single = grid(.burst)
        #expect(single.claim(at: start + .milliseconds(2500), oneSlot: true) == .deliver(first: 0, last: 0, missed: 0))
        #expect(single.claim(at: start + .milliseconds(2500), oneSlot: true) == .deliver(first: 1, last: 1, missed: 0))
    }

    @Test func aBurstHoldsAtMostTheMaximumAndCountsTheOlderSlotsAsMissed() {
        let limit = LateTickPolicy.maximumBurst
        var exact = grid(.burst, interval: .nanoseconds(1))
        let atLimit = start + .nanoseconds(limit - 1)
        #expect(exact.claim(at: atLimit) == .deliver(first: 0, last: limit - 1, missed: 0))
        var over = grid(.burst, interval: .nanoseconds(1))
        let beyond = start + .nanoseconds(limit + 9)
        #expect(over.claim(at: beyond) == .deliver(first: 10, last: limit + 9, missed: 10))
        var single = grid(.burst, interval: .nanoseconds(1))
        #expect(single.claim(at: beyond, oneSlot: true) == .deliver(first: 10, last: 10, missed: 10))
        #expect(single.claim(at: beyond, oneSlot: true) == .deliver(first: 11, last: 11, missed: 0))
    }

    @Test func skipDropsLateSlotsAndReportsThemOnTheNextDelivery() {
        var grid = grid(.skip)
        #expect(grid.claim(at: start + .milliseconds(2500)) == .dropped)
        #expect(grid.dropped == 3)
        #expect(grid.claim(at: start + .milliseconds(2500)) == .notDue(start + .seconds(3)))
        #expect(grid.claim(at: start + .seconds(3)) == .deliver(first: 3, last: 3, missed: 3))
        #expect(grid.claim(at: start + .seconds(4)) == .deliver(first: 4, last: 4, missed: 0))
    }

    @Test func aFiniteGridFinishesAfterItsLastSlotUnderEveryPolicy() {
        for policy in LateTickPolicy.allCases {
            var grid = grid(policy, count: 3)
            _ = grid.claim(at: start + .seconds(10))
            if policy == .burst { #expect(grid.nextSlot == 3) }
            #expect(grid.isFinished, "\(policy)")
            #expect(grid.claim(at: start + .seconds(20)) == .finished)
            #expect(grid.nextDue == nil)
        }
    }

    @Test func movingTheNextSlotShiftsTheRestOfTheGrid() {
        var grid = grid(.coalesce)
        _ = grid.claim(at: start + .seconds(1))  // slots 0 and 1
        grid.moveNextSlot(to: start + .milliseconds(5500))
        #expect(grid.nextDue == start + .milliseconds(5500))
        #expect(grid.due(3) == start + .milliseconds(6500))
        #expect(grid.slot(at: start + .milliseconds(6499)) == 2)
    }

    /// A claim moves the grid's anchor to the next slot (so that a repeating timer's steady state needs no 128-bit
    /// multiplication or division, issue #44), and no slot moves with it: after every claim, under every policy and
    /// lateness, each slot's instant and each instant's slot are those of a grid that was never claimed (whose anchor
    /// is still slot 0), for slots before, at and after the next one, on an interval that is not a whole number of
    /// nanoseconds.
    @Test func claimingMovesNoSlot() {
        let interval = Duration(attoseconds: 333_333_333_333_333_337)
        let reference = TickGrid(first: start, interval: interval, count: nil, policy: .burst)
        for policy in LateTickPolicy.allCases {
            var grid = TickGrid(first: start, interval: interval, count: nil, policy: policy)
            var now = start
            for round in 0..<60 {
                // Late by 0 to 4 intervals and a part of one, and sometimes early (before the next slot).
                now = now + interval * (round % 5) + Duration(attoseconds: Int128(round % 7) * 41_000_000_000_000_017)
                _ = grid.claim(at: now, oneSlot: round % 3 == 0)
                for slot in (grid.nextSlot - 3)...(grid.nextSlot + 3) {
                    #expect(grid.due(slot) == reference.due(slot), "\(policy) round \(round) slot \(slot)")
                }
                for offset in [-2, -1, 0, 1, 2] {
                    let instant = now + interval * offset + .nanoseconds(offset)
                    #expect(grid.slot(at: instant) == reference.slot(at: instant), "\(policy) round \(round)")
                }
                #expect(grid.nextDue == reference.due(grid.nextSlot))
            }
            #expect(grid.nextSlot > 60, "\(policy): the rounds claimed only \(grid.nextSlot) slots")
        }
    }

    @Test func firstSlotAfterAnInstantExtendsBeforeSlotZero() {
        let boundaries = TickGrid(first: start, interval: second, count: nil, policy: .coalesce)
        #expect(boundaries.firstSlot(after: start - .milliseconds(2500))?.due == start - .seconds(2))
        #expect(boundaries.firstSlot(after: start - .seconds(2))?.due == start - .seconds(1))
    }

    @Test func aForeverGridOfOneNanosecondSlotsEndsAtIntMaxInsteadOfTrapping() {
        for policy in LateTickPolicy.allCases {
            var grid = TickGrid(first: .zero, interval: .nanoseconds(1), count: nil, policy: policy)
            let far = TimerInstant(offset: .seconds(300 * 365 * 86_400))
            #expect(grid.slot(at: far) == Int.max)
            var claims = 0
            while claims < 4, grid.claim(at: far) != .finished { claims += 1 }
            #expect(grid.isFinished, "\(policy)")
            if policy == .coalesce { #expect(grid.nextSlot == Int.max) }
        }
    }

    @Test func instantsAtTheBoundsOfDurationSaturateInsteadOfTrapping() {
        let lowest = TimerInstant(offset: Duration(attoseconds: .min))
        let highest = TimerInstant(offset: Duration(attoseconds: .max))
        var grid = TickGrid(first: lowest, interval: .nanoseconds(1), count: nil, policy: .coalesce)
        #expect(grid.slot(at: highest) == Int.max)
        #expect(grid.claim(at: highest) == .deliver(first: Int.max - 1, last: Int.max - 1, missed: Int.max - 1))
        let high = TickGrid(first: highest, interval: TempoError.maximumDuration, count: nil, policy: .burst)
        #expect(high.slot(at: lowest) == Int.min)
        #expect(high.due(1) == nil)
        var claimed = high
        #expect(claimed.claim(at: highest) == .deliver(first: 0, last: 0, missed: 0))
        #expect(claimed.isFinished)  // slot 1 can never be due
        #expect(lowest.saturatingDuration(to: highest) == Duration(attoseconds: .max))
        #expect(highest.saturatingDuration(to: lowest) == Duration(attoseconds: .min))
        #expect(highest.checkedAdvanced(by: .nanoseconds(1)) == nil)
    }
}
