import Tempo
import TempoTesting
import Testing

/// A test that ends with timers still armed on its clock fails, naming them and where they were created.
@Suite struct ArmedTimerCheckTests {
    @Test func aTimerLeftArmedIsReportedWithItsNameAndCreationLine() throws {
        let clock = VirtualClock()
        let line = #line + 1
        let poller = try TempoTimer(.every(.seconds(5)), scheduler: clock.site("poller")) { _ in }.start()
        clock.advance(by: .seconds(5))
        // What the check records (as test issues) when the test ends now.
        let reports = clock.armedTimerReports(sourceLocation: #_sourceLocation)
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(report.message.contains("\"poller\""))
        #expect(report.message.contains("ArmedTimerCheckTests.swift:\(line)"))
        #expect(report.message.contains("due at 10.0 seconds"))
        #expect(report.sourceLocation.line == line)
        #expect(report.timer.site?.name == "poller")
        poller.cancel()
        #expect(clock.armedTimerReports(sourceLocation: #_sourceLocation).isEmpty)
    }

    @Test func cancelledTimersAndTimersMeantToOutliveTheTestAreNotReported() {
        VirtualClock.withArmedTimerCheck { clock in
            let poller = try? TempoTimer(.every(.seconds(5)), scheduler: clock.site("poller")) { _ in }.start()
            let cache = try? TempoTimer(.every(.seconds(60)), scheduler: clock.site("cache", outlivesTest: true)) { _ in
            }.start()
            clock.advance(by: .seconds(10))
            poller?.cancel()
            #expect(clock.armedTimers.count == 1)
            #expect(clock.recordArmedTimers().isEmpty)
            withExtendedLifetime(cache) {}
        }
    }

    @Test func actionsArmedWithoutASiteAreStillReportedByClock() throws {
        let clock = VirtualClock()
        let debouncer = try Debouncer<Int>(delay: .seconds(1), scheduler: clock) { _ in }
        debouncer.call(1)
        #expect(clock.armedTimers.map(\.clock) == [.monotonic])
        #expect(clock.armedTimers.first?.site == nil)
        let here = #_sourceLocation
        let reports = clock.armedTimerReports(sourceLocation: here)
        #expect(reports.map(\.sourceLocation) == [here])
        #expect(reports.first?.message.contains("armed on the monotonic clock") == true)
        clock.advance(by: .seconds(1))
        #expect(clock.armedTimers.isEmpty)
    }

    @Test(.armedTimerCheck) func theTraitGivesTheTestAClockAndPassesWhenEverythingWasCancelled() throws {
        let clock = try #require(VirtualClock.current)
        let log = EventLog()
        let timer = try TempoTimer(.every(.seconds(1), delivery: .immediate), scheduler: clock.site("tick")) { tick in
            log.record("tick \(tick.index)")
        }.start()
        clock.advance(by: .seconds(2))
        timer.cancel()
        #expect(log.all == ["tick 1", "tick 2"])
    }

    @Test func everyTempoTypeCanBeCreatedOnASite() throws {
        let clock = VirtualClock()
        let wheel = try TimingWheel(scheduler: clock.site("wheel"))
        _ = try wheel.schedule(after: .seconds(1)) {}
        let registry = TimerRegistry<String>(scheduler: clock.site("registry"))
        try registry.schedule("job", .after(.seconds(2))) { _ in }
        #expect(Set(clock.armedTimers.compactMap { $0.site?.name }) == ["wheel", "registry"])
        clock.advance(by: .seconds(2))
        #expect(clock.armedTimers.isEmpty)
    }
}
