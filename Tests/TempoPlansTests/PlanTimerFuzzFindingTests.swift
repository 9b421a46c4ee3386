import Foundation
import Tempo
import TempoTesting
import Testing

@testable import TempoPlans

/// Plan timers at the edges an independent fuzz pass found (issue #41), on virtual time. The `VirtualClock`'s wall
/// clock starts at 2026-01-01 00:00:00 UTC.
@Suite struct PlanTimerFuzzFindingTests {
    let clock = VirtualClock()
    let recorder = FireRecorder()
    let start = Fixture.date("2026-01-01T00:00:00Z")

    private func timer(_ plan: Plan, latePolicy: LateTickPolicy = .coalesce) throws -> PlanTimer {
        let recorder = recorder
        return try PlanTimer(plan, latePolicy: latePolicy, scheduler: clock, handler: .fire { recorder.record($0) })
    }

    /// Every third of a second meets every second 1 ns apart (999,999,999 and 1,000,000,000 ns past the anchor): one
    /// `Date`, one date of `nextDates`, one fire.
    @Test(arguments: [LateTickPolicy.coalesce, .burst, .skip])
    func datesADateCannotTellApartFireOnce(policy: LateTickPolicy) throws {
        let plan = try Plan.every(.nanoseconds(333_333_333), anchor: start).union(.every(.seconds(1), anchor: start))
        let timer = try timer(plan, latePolicy: policy)
        timer.start()
        clock.advance(by: .seconds(3))
        let planned = recorder.all.map(\.planned)
        #expect(Set(planned).count == planned.count, "a planned date fired twice: \(planned)")
        let expected = try plan.nextDates(after: start, count: 20).filter { $0 <= start.addingTimeInterval(3) }
        #expect(planned == expected)
        #expect(recorder.all.allSatisfy { $0.missed == 0 })
        timer.cancel()
    }

    /// The case: under `.skip` a jump drops 01:00 to 05:00 unfired; cancelled at 05:30 and started again
    /// after the clock was set back to 02:30, the timer serves 03:00 (it waited for 06:00).
    @Test func restartedAfterTheClockWasSetBackServesTheDatesAfterTheRestart() throws {
        let timer = try timer(try Plan.cron("0 * * * *", in: Fixture.utc), latePolicy: .skip)
        timer.start()
        clock.advance(by: .seconds(30 * 60))
        clock.adjustWallClock(by: .seconds(5 * 3600))  // 05:30: 01:00 to 05:00 dropped
        #expect(recorder.all.isEmpty)
        #expect(timer.nextDate == Fixture.date("2026-01-01T06:00:00Z"))
        timer.cancel()
        clock.adjustWallClock(by: .seconds(-3 * 3600))  // 02:30
        timer.start()
        #expect(timer.nextDate == Fixture.date("2026-01-01T03:00:00Z"))
        clock.advance(by: .seconds(30 * 60))
        #expect(recorder.planned == ["2026-01-01T03:00:00Z"])
        #expect(recorder.all.map(\.missed) == [0])
        timer.cancel()
    }

    /// A restart never fires a date again: set back past the last fire, it waits for the date after that fire.
    @Test(arguments: [LateTickPolicy.coalesce, .burst, .skip])
    func restartedAfterTheClockWasSetBackDoesNotFireAFiredDateAgain(policy: LateTickPolicy) throws {
        let timer = try timer(try Plan.cron("0 * * * *", in: Fixture.utc), latePolicy: policy)
        timer.start()
        clock.advance(by: .seconds(3600 + 30 * 60))  // 01:30, 01:00 fired
        timer.cancel()
        clock.adjustWallClock(by: .seconds(-3600))  // 00:30
        timer.start()
        #expect(timer.nextDate == Fixture.date("2026-01-01T02:00:00Z"))
        clock.advance(by: .seconds(2 * 3600))  // 02:30
        #expect(recorder.planned == ["2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"])
        timer.cancel()
    }

    /// `PlanFires` shares the plan timer's bookkeeping: one fire per `Date` there too.
    @Test func anAsyncLoopGetsOneFirePerDate() async throws {
        let plan = try Plan.every(.nanoseconds(333_333_333), anchor: start).union(.every(.seconds(1), anchor: start))
        let clock = clock
        let received = recorder
        let loop = Task {
            for await fire in try plan.fires(scheduler: clock) {
                received.record(fire)
                if received.all.count == 4 { break }
            }
        }
        // Each step lands on a wakeup: 1/3 s, 2/3 s, 999,999,999 ns, then 1 ns on to the second's own date (the
        // same `Date`: no fire), then 1,333,333,332 ns.
        let steps: [(Duration, Int)] = [
            (.nanoseconds(333_333_333), 1), (.nanoseconds(333_333_333), 2), (.nanoseconds(333_333_333), 3),
            (.nanoseconds(1), 3), (.nanoseconds(333_333_332), 4),
        ]
        for (step, expected) in steps {
            try #require(await clock.waitForPending())
            clock.advance(by: step)
            let start = ContinuousClock.now
            while received.all.count < expected, start.duration(to: .now) < .seconds(10) { await Task.yield() }
        }
        try await loop.value
        let planned = received.all.map(\.planned)
        #expect(Set(planned).count == 4, "a planned date fired twice: \(planned)")
        #expect(planned == (try plan.nextDates(after: start, count: 4)))
    }
}
