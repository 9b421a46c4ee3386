import Tempo
import TempoTesting
import Testing

/// Everything a timer made or captured is released at the end of its life: after cancel, after its owner
/// dies, after a one-shot finishes. `.ci/run` also runs this suite under AddressSanitizer/LeakSanitizer.
@Suite struct LeakTests {
    @Test(arguments: LeakScenario.all)
    func everythingIsReleasedAtTheEndOfItsLife(scenario: LeakScenario) throws {
        let clock = VirtualClock()
        let references = try scenario.run(clock)
        #expect(!references.isEmpty)
        let survivors = scenario.survivors(of: references)
        #expect(survivors.isEmpty, "still alive after \(scenario.name): \(survivors)")
        withExtendedLifetime(clock) {}
    }

    @Test func theCheckSeesAnObjectThatIsStillReferenced() throws {
        // A running timer is kept alive by its scheduler: the check must report it, or it proves nothing.
        let clock = VirtualClock()
        let tracker = LeakTracker()
        try LeakScenario.makeTracked(tracker, scheduler: clock).start()
        let scenario = LeakScenario(name: "running", realTime: false) { _ in tracker.references }
        #expect(scenario.survivors(of: try scenario.run(clock)).contains("timer"))
        clock.runUntilIdle(limit: 1)
    }
}
