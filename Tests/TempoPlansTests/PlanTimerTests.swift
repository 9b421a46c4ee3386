import Foundation
import Tempo
import TempoLocks
import TempoTesting
import Testing

@testable import TempoPlans

/// Collects fires from handlers.
final class FireRecorder: Sendable {
    private let fires = TempoMutex<[PlanFire]>([])

    func record(_ fire: PlanFire) { fires.withLock { $0.append(fire) } }
    var all: [PlanFire] { fires.withLock { $0 } }
    var planned: [String] { all.map { Fixture.text($0.planned, in: Fixture.utc) } }
}

/// Plan timers on virtual time. The `VirtualClock`'s wall clock starts at 2026-01-01 00:00:00 UTC, a Thursday.
@Suite struct PlanTimerTests {
    let clock = VirtualClock()
    let recorder = FireRecorder()

    private func timer(_ plan: Plan, latePolicy: LateTickPolicy = .coalesce) throws -> PlanTimer {
        let recorder = recorder
        return try PlanTimer(plan, latePolicy: latePolicy, scheduler: clock, handler: .fire { recorder.record($0) })
    }

    private func weekdayNines() throws -> Plan { try Plan.cron("0 9 * * MON-FRI", in: Fixture.utc) }

    @Test func firesAtEachWeekdayDateAndNeverBefore() throws {
        let timer = try timer(weekdayNines())
        timer.start()
        #expect(timer.nextDate == Fixture.date("2026-01-01T09:00:00Z"))
        clock.advance(by: .seconds(9 * 3600) - .nanoseconds(1))
        #expect(recorder.all.isEmpty)
        clock.advance(by: .nanoseconds(1))
        #expect(recorder.planned == ["2026-01-01T09:00:00Z"])
        #expect(recorder.all.first?.lateness == .zero)
        #expect(recorder.all.first?.missed == 0)
        clock.advance(by: .seconds(7 * 86_400))
        #expect(
            recorder.planned == [
                "2026-01-01T09:00:00Z", "2026-01-02T09:00:00Z", "2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z",
                "2026-01-07T09:00:00Z", "2026-01-08T09:00:00Z",
            ])
        #expect(recorder.all.map(\.index) == Array(1...6))
        timer.cancel()
    }

    @Test func clockSetForwardPastDatesCoalescesThem() throws {
        let timer = try timer(weekdayNines())
        timer.start()
        clock.advance(by: .seconds(8 * 3600))
        clock.adjustWallClock(by: .seconds(86_400 + 2 * 3600))  // now Friday 10:00
        #expect(recorder.planned == ["2026-01-02T09:00:00Z"])
        #expect(recorder.all.first?.missed == 1)
        #expect(recorder.all.first?.lateness == .seconds(3600))
        #expect(timer.nextDate == Fixture.date("2026-01-05T09:00:00Z"))
        timer.cancel()
    }

    @Test func clockSetBackAfterAFireDoesNotFireTheSameDateAgain() throws {
        let timer = try timer(weekdayNines())
        timer.start()
        clock.advance(by: .seconds(9 * 3600))
        #expect(recorder.planned == ["2026-01-01T09:00:00Z"])
        clock.adjustWallClock(by: .seconds(-2 * 3600))  // 07:00 again
        clock.advance(by: .seconds(3 * 3600))  // through 09:00 a second time
        #expect(recorder.planned == ["2026-01-01T09:00:00Z"])
        clock.advance(by: .seconds(23 * 3600) - .nanoseconds(1))  // from 10:00 to Friday 08:59:59.999999999
        #expect(recorder.all.count == 1)
        clock.advance(by: .nanoseconds(1))
        #expect(recorder.planned == ["2026-01-01T09:00:00Z", "2026-01-02T09:00:00Z"])
        timer.cancel()
    }

    @Test func clockSetBackWhileWaitingStillWaitsForTheDate() throws {
        let timer = try timer(weekdayNines())
        timer.start()
        clock.advance(by: .seconds(8 * 3600))
        clock.adjustWallClock(by: .seconds(-3600))  // 07:00
        clock.advance(by: .seconds(2 * 3600) - .nanoseconds(1))
        #expect(recorder.all.isEmpty)
        clock.advance(by: .nanoseconds(1))
        #expect(recorder.planned == ["2026-01-01T09:00:00Z"])
        timer.cancel()
    }

    @Test(arguments: [LateTickPolicy.coalesce, .burst, .skip])
    func suspensionAcrossPlannedDatesFollowsTheLatePolicy(policy: LateTickPolicy) throws {
        let timer = try timer(Plan.cron("0 */6 * * *", in: Fixture.utc), latePolicy: policy)
        timer.start()
        clock.advance(by: .seconds(3600))
        clock.suspend(for: .seconds(18 * 3600))  // 19:00: 06:00, 12:00 and 18:00 passed
        switch policy {
        case .coalesce:
            #expect(recorder.planned == ["2026-01-01T18:00:00Z"])
            #expect(recorder.all.map(\.missed) == [2])
        case .burst:
            #expect(recorder.planned == ["2026-01-01T06:00:00Z", "2026-01-01T12:00:00Z", "2026-01-01T18:00:00Z"])
            #expect(recorder.all.map(\.missed) == [0, 0, 0])
        default:
            #expect(recorder.all.isEmpty)
            clock.advance(by: .seconds(5 * 3600))
            #expect(recorder.planned == ["2026-01-02T00:00:00Z"])
            #expect(recorder.all.map(\.missed) == [3])
        }
        timer.cancel()
    }

    @Test func aPlanOfTheFirstThreeDatesFinishes() throws {
        let plan = try Plan.cron("0 12 * * *", in: Fixture.utc).first(3, after: Fixture.date("2026-01-01T00:00:00Z"))
        let timer = try timer(plan)
        timer.start()
        clock.advance(by: .seconds(10 * 86_400))
        #expect(recorder.planned == ["2026-01-01T12:00:00Z", "2026-01-02T12:00:00Z", "2026-01-03T12:00:00Z"])
        #expect(timer.state == .finished)
        #expect(clock.pendingCount == 0)
    }

    @Test func cancelStopsFiresAndStartResumesFromNow() throws {
        let timer = try timer(Plan.cron("0 * * * *", in: Fixture.utc))
        timer.start()
        clock.advance(by: .seconds(3600))
        timer.cancel()
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(3 * 3600))
        #expect(recorder.all.count == 1)
        timer.start()
        clock.advance(by: .seconds(3600))
        #expect(recorder.planned == ["2026-01-01T01:00:00Z", "2026-01-01T05:00:00Z"])
        timer.cancel()
    }

    @Test func aSkippedLocalTimeFiresAtTheChangeOnVirtualTime() throws {
        let clock = VirtualClock(
            wall: TimerInstant(offset: .seconds(Int64(Fixture.date("2026-03-28T12:00:00Z").timeIntervalSince1970))))
        let recorder = recorder
        let timer = try PlanTimer(
            Plan.cron("30 2 * * *", in: Fixture.berlin), scheduler: clock, handler: .fire { recorder.record($0) })
        timer.start()
        clock.advance(by: .seconds(13 * 3600) - .nanoseconds(1))  // 2026-03-29T00:59:59.999999999Z
        #expect(recorder.all.isEmpty)
        clock.advance(by: .nanoseconds(1))  // 01:00Z = 03:00 CEST
        #expect(recorder.planned == ["2026-03-29T01:00:00Z"])
        timer.cancel()
    }

    @Test func badLeewayIsRejected() throws {
        #expect(throws: PlanError.self) {
            try PlanTimer(weekdayNines(), leeway: .seconds(-1), scheduler: clock, handler: .fire { _ in })
        }
    }
}

@Suite struct PlanRegistryTests {
    let clock = VirtualClock()
    let recorder = FireRecorder()

    @Test func entriesFireByKeyAndCanBeReplacedAndCancelled() throws {
        let registry = PlanRegistry<String>(scheduler: clock)
        let recorder = recorder
        try registry.schedule("report", Plan.cron("0 9 * * *", in: Fixture.utc), handler: .fire { recorder.record($0) })
        #expect(registry.contains("report"))
        #expect(registry.nextDate(of: "report") == Fixture.date("2026-01-01T09:00:00Z"))
        clock.advance(by: .seconds(9 * 3600))
        #expect(recorder.planned == ["2026-01-01T09:00:00Z"])
        let replaced = try registry.schedule(
            "report", Plan.cron("0 10 * * *", in: Fixture.utc),
            handler: .fire {
                recorder.record($0)
            })
        #expect(replaced)
        clock.advance(by: .seconds(3600))
        #expect(recorder.planned == ["2026-01-01T09:00:00Z", "2026-01-01T10:00:00Z"])
        #expect(registry.cancel("report"))
        clock.advance(by: .seconds(86_400))
        #expect(recorder.all.count == 2)
        #expect(registry.count == 0)
        #expect(throws: PlanError.self) { try registry.schedule("", .never, handler: .fire { _ in }) }
    }

    @Test func aFinishedPlanLeavesTheRegistry() throws {
        let registry = PlanRegistry<String>(scheduler: clock)
        let plan = try Plan.dates([Fixture.date("2026-01-01T01:00:00Z")])
        try registry.schedule("once", plan, handler: .fire { _ in })
        #expect(registry.keys == ["once"])
        clock.advance(by: .seconds(3600))
        #expect(registry.keys.isEmpty)
    }
}

@Suite struct PlanFiresTests {
    @Test func anAsyncLoopReceivesEachFireAtItsDate() async throws {
        let clock = VirtualClock()
        let plan = try Plan.cron("0 * * * *", in: Fixture.utc)
        let received = FireRecorder()
        let loop = Task {
            for await fire in try plan.fires(scheduler: clock) {
                received.record(fire)
                if received.all.count == 2 { break }
            }
        }
        try #require(await clock.waitForPending())
        clock.advance(by: .seconds(3600) - .nanoseconds(1))
        #expect(received.all.isEmpty)
        clock.advance(by: .nanoseconds(1))
        #expect(await waitUntil { received.all.count == 1 })
        try #require(await clock.waitForPending())
        clock.suspend(for: .seconds(2 * 3600))  // 03:00: 02:00 and 03:00 coalesce
        #expect(await waitUntil { received.all.count == 2 })
        try await loop.value
        #expect(received.planned == ["2026-01-01T01:00:00Z", "2026-01-01T03:00:00Z"])
        #expect(received.all.map(\.missed) == [0, 1])
    }

    @Test func cancellingTheTaskEndsTheLoop() async throws {
        let clock = VirtualClock()
        let plan = try Plan.cron("0 0 1 1 *", in: Fixture.utc)
        let loop = Task { () -> Int in
            var count = 0
            for await _ in try plan.fires(scheduler: clock) { count += 1 }
            return count
        }
        try #require(await clock.waitForPending())
        loop.cancel()
        #expect(try await loop.value == 0)
    }

    private func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
        let start = ContinuousClock.now
        while !condition() {
            if start.duration(to: .now) > .seconds(10) { return false }
            await Task.yield()
        }
        return true
    }
}
