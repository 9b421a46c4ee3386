import Tempo
import TempoTools
import Testing

@Suite struct OverlapGateTests {
    enum Event { case tick, finish }

    /// Feeds `events` to `gate` and returns, for each, whether the caller had to start a run.
    static func feed(_ gate: inout OverlapGate, _ events: [Event]) -> [Bool] {
        events.map { event in
            switch event {
            case .tick: gate.tickArrived()
            case .finish: gate.runFinished()
            }
        }
    }

    @Test func aTickWhileIdleStartsARun() {
        var gate = OverlapGate(policy: .coalesce)
        #expect(gate.isIdle)
        #expect(Self.feed(&gate, [.tick]) == [true])
        #expect(gate.isRunning)
        #expect(Self.feed(&gate, [.finish]) == [false])
        #expect(gate.isIdle)
        #expect(gate.started == 1)
    }

    @Test func coalesceFoldsOverlappingTicksIntoOneRunAfterTheCurrentOne() {
        var gate = OverlapGate(policy: .coalesce)
        #expect(Self.feed(&gate, [.tick, .tick, .tick, .tick]) == [true, false, false, false])
        #expect(gate.pending == 1)
        #expect(gate.overlapped == 2)
        #expect(Self.feed(&gate, [.finish, .finish]) == [true, false])
        #expect(gate.started == 2)
        #expect(gate.isIdle)
    }

    @Test func burstOwesOneRunPerOverlappingTick() {
        var gate = OverlapGate(policy: .burst)
        #expect(Self.feed(&gate, [.tick, .tick, .tick]) == [true, false, false])
        #expect(Self.feed(&gate, [.finish, .finish, .finish]) == [true, true, false])
        #expect(gate.started == 3)
        #expect(gate.overlapped == 0)
    }

    @Test func skipDropsOverlappingTicksAndWaitsForTheNextOne() {
        var gate = OverlapGate(policy: .skip)
        #expect(Self.feed(&gate, [.tick, .tick, .tick, .finish]) == [true, false, false, false])
        #expect(gate.overlapped == 2)
        #expect(gate.isIdle)
        #expect(Self.feed(&gate, [.tick]) == [true])
        #expect(gate.started == 2)
    }

    @Test func dropPendingForgetsOwedRunsButNotTheCurrentOne() {
        var gate = OverlapGate(policy: .burst)
        _ = Self.feed(&gate, [.tick, .tick, .tick])
        #expect(gate.dropPending() == 2)
        #expect(gate.isRunning)
        #expect(Self.feed(&gate, [.finish]) == [false])
        #expect(gate.isIdle)
    }
}
