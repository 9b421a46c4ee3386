import Tempo
import TempoTesting
import Testing

/// Everything a timer made or captured is released at the end of its life: after cancel, after its owner
/// dies, after a one-shot finishes. `.ci/run` also runs this suite under AddressSanitizer/LeakSanitizer.
/// Serialized: async scenarios need a free thread of the cooperative pool (two on this machine) to end their tasks.
@Suite(.serialized) struct LeakTests {
    @Test(arguments: LeakScenario.all)
    func everythingIsReleasedAtTheEndOfItsLife(scenario: LeakScenario) async throws {
        let clock = VirtualClock()
        let tracker = LeakTracker()
        try scenario.run(clock, tracker)
        #expect(!tracker.references.isEmpty)
        let survivors = await scenario.survivors(of: tracker.references)
        #expect(survivors.isEmpty, "still alive after \(scenario.name): \(survivors)")
        tracker.cleanUp()
        withExtendedLifetime(clock) {}
    }

    @Test func theCheckSeesAnObjectThatIsStillReferenced() async throws {
        // A running timer is kept alive by its scheduler: the check must report it, or it proves nothing.
        let clock = VirtualClock()
        let tracker = LeakTracker()
        let timer = try LeakScenario.makeTracked(tracker, scheduler: clock)
        timer.start()
        let scenario = LeakScenario(name: "running", realTime: false) { _, _ in }
        #expect(await scenario.survivors(of: tracker.references).contains("timer"))
        timer.cancel()
    }
}
