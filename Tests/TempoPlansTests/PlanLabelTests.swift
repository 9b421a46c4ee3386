import Foundation
import Tempo
import TempoLocks
import TempoPlans
import TempoTesting
import Testing

/// Records the ticks of timers whose label starts with `prefix` (instruments are process-wide; tests run in parallel).
private final class LabelRecorder: TimerInstrument {
    let prefix: String
    private let labels = TempoMutex<[TimerLabel]>([])

    init(prefix: String) { self.prefix = prefix }

    var ticks: [TimerLabel] { labels.withLock { $0 } }

    func tickDelivered(_ event: TimerInstruments.TickEvent) {
        guard let label = event.label, label.name.hasPrefix(prefix) else { return }
        labels.withLock { $0.append(label) }
    }
}

/// A labeled plan names its plan timer's timer: in instrument events and in the armed-timer check.
@Suite struct PlanLabelTests {
    @Test func aLabeledPlanKeepsItsDatesAndCarriesTheLabelWithItsSite() throws {
        let plan = try Plan.cron("0 9 * * *", in: Fixture.utc)
        let line = #line + 1
        let labeled = plan.labeled("reports")
        #expect(plan.label == nil)
        #expect(labeled.label == TimerLabel("reports", fileID: #fileID, line: line))
        let after = Fixture.date("2026-01-01T00:00:00Z")
        #expect(try labeled.nextDates(after: after, count: 3) == plan.nextDates(after: after, count: 3))
    }

    @Test func aPlanTimerOfALabeledPlanReportsItsFiresUnderTheLabel() throws {
        let clock = VirtualClock()
        let recorder = LabelRecorder(prefix: "plan-label-fires")
        let registration = try TimerInstruments.add(recorder)
        defer { TimerInstruments.remove(registration) }
        let plan = try Plan.cron("0 9 * * *", in: Fixture.utc).labeled("plan-label-fires")
        let timer = try PlanTimer(plan, scheduler: clock, handler: .fire { _ in })
        timer.start()
        defer { timer.cancel() }
        clock.advance(by: .seconds(9 * 3600) - .nanoseconds(1))
        #expect(recorder.ticks.isEmpty)
        clock.advance(by: .nanoseconds(1))
        #expect(recorder.ticks.map(\.name) == ["plan-label-fires"])
    }

    @Test func aPlanTimerLeftRunningIsNamedByTheArmedTimerCheck() throws {
        let clock = VirtualClock()
        let line = #line + 1
        let plan = try Plan.cron("0 9 * * *", in: Fixture.utc).labeled("nightly")
        let timer = try PlanTimer(plan, scheduler: clock, handler: .fire { _ in })
        timer.start()
        let reports = clock.armedTimerReports(sourceLocation: #_sourceLocation)
        #expect(reports.map(\.timer.label?.name) == ["nightly"])
        #expect(reports.first?.sourceLocation.line == line)
        #expect(reports.first?.message.contains("\"nightly\"") == true)
        timer.cancel()
        #expect(clock.armedTimers.isEmpty)
    }

    @Test func aPlanRegistryEntryIsNamedByItsPlansLabel() throws {
        let clock = VirtualClock()
        let registry = PlanRegistry<String>(scheduler: clock)
        try registry.schedule(
            "tenant-9", Plan.cron("*/5 * * * *", in: Fixture.utc).labeled("tenant-sync"),
            handler: .fire { _ in
            })
        #expect(clock.armedTimers.compactMap { $0.label?.name } == ["tenant-sync"])
        registry.cancelAll()
        #expect(clock.armedTimers.isEmpty)
    }
}
