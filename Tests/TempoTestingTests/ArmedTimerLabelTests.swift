import Tempo
import TempoTesting
import Testing

/// The armed-timer check names a timer by the label of its schedule when it was not created on a site.
@Suite struct ArmedTimerLabelTests {
    @Test func aLabeledTimerLeftArmedIsReportedByItsLabelAtTheLineThatGaveIt() throws {
        let clock = VirtualClock()
        let line = #line + 1
        let poller = try TempoTimer(.every(.seconds(5)).labeled("poller"), scheduler: clock) { _ in }.start()
        clock.advance(by: .seconds(5))
        let reports = clock.armedTimerReports(sourceLocation: #_sourceLocation)
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.timer.label?.name == "poller")
        #expect(report.timer.site == nil)
        #expect(report.message.contains("\"poller\" (\(#fileID):\(line))"))
        #expect(report.message.contains("due at 10.0 seconds"))
        #expect(report.sourceLocation.line == line)
        poller.cancel()
        #expect(clock.armedTimers.isEmpty)
    }

    @Test func aSiteStillNamesTheTimerBeforeItsLabel() throws {
        let clock = VirtualClock()
        let timer = try TempoTimer(.after(.seconds(1)).labeled("label"), scheduler: clock.site("site")) { _ in }
            .start()
        let armed = try #require(clock.armedTimers.first)
        #expect(armed.site?.name == "site")
        #expect(armed.label?.name == "label")
        #expect(armed.description.hasPrefix("\"site\""))
        timer.cancel()
    }

    @Test func registryKeysAndTickersPassTheirSchedulesLabelToTheCheck() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        try registry.schedule("user-42", .every(.seconds(2)).labeled("session-refresh")) { _ in }
        let ticker = try SharedTicker(.every(.seconds(3)).labeled("ui-ticker"), scheduler: clock)
        let subscription = try ticker.subscribe { _ in }
        #expect(Set(clock.armedTimers.compactMap { $0.label?.name }) == ["session-refresh", "ui-ticker"])
        clock.advance(by: .seconds(6))
        #expect(Set(clock.armedTimers.compactMap { $0.label?.name }) == ["session-refresh", "ui-ticker"])
        registry.cancelAll()
        subscription.cancel()
        #expect(clock.armedTimers.isEmpty)
    }

    @Test func anUnlabeledTimerWithoutASiteIsStillReportedAndTheMessageSaysHowToNameIt() throws {
        let clock = VirtualClock()
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock) { _ in }.start()
        let armed = try #require(clock.armedTimers.first)
        #expect(armed.label == nil && armed.site == nil)
        #expect(armed.description.contains(".labeled(\"name\")"))
        timer.cancel()
    }
}
