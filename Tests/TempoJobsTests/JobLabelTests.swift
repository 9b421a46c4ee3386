import Tempo
import TempoJobs
import TempoTesting
import Testing

/// A job's name is its label: the armed-timer check names a job still waiting for its date, at its registration.
@Suite struct JobLabelTests {
    @Test func aJobWaitingForItsDateIsNamedByTheArmedTimerCheckAtItsRegistration() async throws {
        let clock = VirtualClock()
        let log = Trace()
        let line = #line + 3
        try await clock.run {
            let scheduler = makeScheduler(on: clock, log: log)
            try scheduler.register("hourly-report", .every(.seconds(3600))) { _ in }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await scheduler.run() }
                await settle(clock)
                let reports = clock.armedTimerReports(sourceLocation: #_sourceLocation)
                    .filter { $0.timer.label != nil }
                #expect(reports.map(\.timer.label?.name) == ["hourly-report"])
                #expect(reports.first?.sourceLocation.line == line)
                #expect(reports.first?.message.contains("\"hourly-report\" (\(#fileID):\(line))") == true)
                #expect(reports.first?.message.contains("due at 3600.0 seconds") == true)
                scheduler.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(clock.armedTimers.allSatisfy { $0.label == nil })
    }
}
