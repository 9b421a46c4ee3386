import Testing

@testable import Tempo

@Suite struct SlotScheduleTests {
    private let second = Duration.seconds(1)

    @Test func waitsForEachSlotUntilItIsDue() {
        var schedule = SlotSchedule(interval: second, total: nil, policy: .coalesce)
        #expect(schedule.decide(elapsed: .milliseconds(-1)) == .wait(slot: 0))
        #expect(schedule.decide(elapsed: .zero) == .deliver(slot: 0, missed: 0))
        #expect(schedule.decide(elapsed: .milliseconds(999)) == .wait(slot: 1))
        #expect(schedule.decide(elapsed: second) == .deliver(slot: 1, missed: 0))
    }

    @Test func aTickLessThanAnIntervalLateIsDeliveredUnderEveryPolicy() {
        for policy in LateTickPolicy.allCases {
            var schedule = SlotSchedule(interval: second, total: nil, policy: policy)
            #expect(schedule.decide(elapsed: .milliseconds(999)) == .deliver(slot: 0, missed: 0))
        }
    }

    @Test func coalesceDeliversTheLatestDueSlotAndCountsTheOthers() {
        var schedule = SlotSchedule(interval: second, total: nil, policy: .coalesce)
        #expect(schedule.decide(elapsed: .milliseconds(3500)) == .deliver(slot: 3, missed: 3))
        #expect(schedule.decide(elapsed: .milliseconds(3500)) == .wait(slot: 4))
    }

    @Test func burstDeliversEveryDueSlotInOrder() {
        var schedule = SlotSchedule(interval: second, total: nil, policy: .burst)
        let elapsed = Duration.milliseconds(2500)
        #expect(schedule.decide(elapsed: elapsed) == .deliver(slot: 0, missed: 0))
        #expect(schedule.decide(elapsed: elapsed) == .deliver(slot: 1, missed: 0))
        #expect(schedule.decide(elapsed: elapsed) == .deliver(slot: 2, missed: 0))
        #expect(schedule.decide(elapsed: elapsed) == .wait(slot: 3))
    }

    @Test func skipDropsEveryDueSlotAndReportsThemOnTheNextDelivery() {
        var schedule = SlotSchedule(interval: second, total: nil, policy: .skip)
        #expect(schedule.decide(elapsed: .milliseconds(2500)) == .wait(slot: 3))
        #expect(schedule.decide(elapsed: .seconds(3)) == .deliver(slot: 3, missed: 3))
        #expect(schedule.decide(elapsed: .seconds(4)) == .deliver(slot: 4, missed: 0))
    }

    @Test func aFiniteScheduleFinishesAfterItsLastSlot() {
        var coalesced = SlotSchedule(interval: second, total: 3, policy: .coalesce)
        #expect(coalesced.decide(elapsed: .seconds(10)) == .deliver(slot: 2, missed: 2))
        #expect(coalesced.decide(elapsed: .seconds(10)) == .finished)
        var skipped = SlotSchedule(interval: second, total: 3, policy: .skip)
        #expect(skipped.decide(elapsed: .seconds(10)) == .finished)
    }
}
