import Tempo
import TempoTesting
import Testing

@Suite struct YieldingPatienceTests {
    /// Once the time is up, a wait still makes its minimum number of yields before it gives up, so a wait that was
    /// starved of threads for the whole timeout does not fail at its first chance to run.
    @Test func aWaitGivesUpOnlyAfterItsTimeAndItsMinimumYields() async {
        var patience = YieldingPatience(timeout: .zero, minimumYields: 3)
        var yields = 0
        while await patience.yield() { yields += 1 }
        #expect(yields == 3)
    }

    /// A wait that yields enough gives up once the time is up.
    @Test func aWaitThatYieldsEnoughGivesUpAfterItsTimeout() async {
        let start = ContinuousClock.now
        var patience = YieldingPatience(timeout: .milliseconds(20), minimumYields: 0)
        while await patience.yield() {}
        #expect(start.duration(to: .now) >= .milliseconds(20))
    }

    /// `waitForPending` with nothing scheduled gives up (after its timeout and 10,000 yields) and says so.
    @Test func waitForPendingReportsAClockWithNothingPending() async {
        let clock = VirtualClock()
        #expect(await clock.waitForPending(timeout: .milliseconds(1)) == false)
    }
}
