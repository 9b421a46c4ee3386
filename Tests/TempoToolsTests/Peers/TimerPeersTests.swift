import Dispatch
import Tempo
import Testing

@testable import TempoTools

/// The peers that `tempo bench` and the benchmark package share: each fires its counter once for a due timer, and
/// cancelling and settling return while another timer is armed (real time, generous bounds: only what holds on
/// a loaded machine; the cancelled timer is due in an hour, so this does not prove it never fires).
@Suite struct TimerPeersTests {
    private func firesItsDueTimerOnce<Peer: TimerPeer>(_: Peer.Type) async {
        let counter = FireCounter()
        let peer = Peer(capacity: 16, counter: counter)
        defer { peer.shutdown() }
        counter.expect(1)
        let due = peer.arm(after: .milliseconds(1))
        let cancelled = peer.arm(after: .seconds(3600))
        await peer.settle(armed: 2)
        peer.cancel(cancelled)
        await peer.settle(cancelled: 1)
        #expect(counter.done.wait(timeout: .now() + .seconds(30)) == .success, "\(Peer.name) never fired")
        withExtendedLifetime(due) {}
        #expect(counter.fired.load(ordering: .relaxed) == 1, "\(Peer.name)")
    }

    @Test func tempoTimerPeerFiresItsDueTimerOnce() async {
        await firesItsDueTimerOnce(TempoTimerPeer.self)
    }

    @Test func wheelPeersFireTheirDueTimerOnce() async {
        await firesItsDueTimerOnce(WheelValuePeer.self)
        await firesItsDueTimerOnce(WheelDeadlinePeer.self)
        await firesItsDueTimerOnce(WheelClosurePeer.self)
    }

    @Test func dispatchPeerFiresItsDueTimerOnce() async {
        await firesItsDueTimerOnce(DispatchPeer.self)
    }

    @Test func taskSleepPeerFiresItsDueTimerOnceAndSettlesWhenItsTasksSleptAndEnded() async {
        await firesItsDueTimerOnce(TaskSleepPeer.self)
    }

    @Test func theBenchMeasuresEverySubjectThroughItsPeer() async throws {
        for subject in MassTimerBench.Subject.allCases {
            let result = try await MassTimerBench.run(subject, count: 100)
            #expect(result.subject == subject)
            #expect(result.armNanoseconds > 0, "\(subject)")
            #expect(result.cancelNanoseconds > 0, "\(subject)")
        }
    }
}
