import Clocks
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// The "Testing code that uses time" article's examples (TempoTesting's catalog), compiled and run.
@Suite struct TestingArticleExampleTests {
    final class Document: Sendable {
        private let saves = TempoMutex(0)
        var saveCount: Int { saves.withLock { $0 } }
        func save() { saves.withLock { $0 += 1 } }
    }

    /// Saves a document every minute.
    static func startAutosave(_ document: Document, scheduler: any TimerScheduler) throws -> TempoTimer {
        try TempoTimer(.every(.seconds(60), delivery: .immediate), scheduler: scheduler) { _ in document.save() }
            .start()
    }

    @Test func manualModeChecksTheBoundaryExactly() throws {
        let clock = VirtualClock()
        let document = Document()
        let autosave = try Self.startAutosave(document, scheduler: clock)
        clock.advance(by: .seconds(59))
        #expect(document.saveCount == 0)
        clock.advance(by: .seconds(1))
        #expect(document.saveCount == 1)
        autosave.cancel()
    }

    @Test func autoAdvancingModeRunsAnHourOfAutosaves() async throws {
        let clock = VirtualClock()
        let document = Document()
        try await clock.run {
            let autosave = try Self.startAutosave(document, scheduler: clock)
            try await clock.sleep(for: .seconds(3630))
            autosave.cancel()
        }
        #expect(document.saveCount == 60)
    }

    @Test func theArmedTimerCheckNamesAForgottenAutosave() {
        let document = Document()
        VirtualClock.withArmedTimerCheck { clock in
            let autosave = try? Self.startAutosave(document, scheduler: clock.site("autosave"))
            clock.advance(by: .seconds(60))
            autosave?.cancel()
        }
        let clock = VirtualClock()
        let autosave = try? Self.startAutosave(document, scheduler: clock.site("autosave"))
        clock.advance(by: .seconds(60))
        let reports = clock.armedTimerReports(sourceLocation: #_sourceLocation)
        #expect(reports.map(\.timer.site?.name) == ["autosave"])
        #expect(reports.first?.message.contains("due at 120.0 seconds") == true)
        autosave?.cancel()
        #expect(document.saveCount == 2)
    }

    @Test func aTestClockDrivesTheAutosaveThroughClockScheduler() async throws {
        let clock = TestClock()
        let document = Document()
        let autosave = try Self.startAutosave(document, scheduler: ClockScheduler(clock: clock))
        await clock.advance(by: .seconds(60))
        #expect(await waitUntil { document.saveCount == 1 })
        autosave.cancel()
    }

    @Test func anExistentialClockIsWrappedInAnyClock() async throws {
        let injected: any Clock<Duration> = TestClock()
        let document = Document()
        let autosave = try Self.startAutosave(document, scheduler: ClockScheduler(clock: AnyClock(injected)))
        let testClock = try #require(injected as? TestClock<Duration>)
        await testClock.advance(by: .seconds(120))
        #expect(await waitUntil { document.saveCount >= 1 })
        autosave.cancel()
    }

    final class Backups: Sendable { let count = TempoMutex(0) }

    @Test func readmeExampleBacksUpEveryHourForADay() async throws {
        let clock = VirtualClock()
        let backups = Backups()
        try await clock.run {
            let timer = try TempoTimer(.every(.seconds(3600)), scheduler: clock) { _ in
                backups.count.withLock { $0 += 1 }
            }.start()
            try await clock.sleep(for: .seconds(24 * 3600 + 60))
            timer.cancel()
        }
        #expect(backups.count.withLock { $0 } == 24)
    }

    /// Yields until `condition` holds (at most 10 s of real time).
    func waitUntil(_ condition: () -> Bool) async -> Bool {
        await eventually(condition)
    }
}
