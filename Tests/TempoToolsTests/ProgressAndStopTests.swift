import Synchronization
import Tempo
import TempoTools
import Testing

/// What the measuring loops report while they run, and how a requested stop ends them.
@Suite struct ProgressAndStopTests {
    /// 50 timers: progress every 2 (a twentieth), per phase, arm before cancel, each phase ending at 1.
    @Test(arguments: [50, 7])
    func benchProgressNamesThePhaseAndEndsEachAtOne(count: Int) async throws {
        let reports = Mutex<[(MassTimerBench.Phase, Double)]>([])
        _ = try await MassTimerBench.run(.wheel, count: count) { phase, done in
            reports.withLock { $0.append((phase, done)) }
        }
        let seen = reports.withLock { $0 }
        let arm = seen.filter { $0.0 == .arm }.map(\.1)
        let cancel = seen.filter { $0.0 == .cancel }.map(\.1)
        #expect(arm.last == 1)
        #expect(cancel.last == 1)
        #expect(arm == arm.sorted() && cancel == cancel.sorted())
        #expect(seen.firstIndex { $0.0 == .cancel }! == arm.count, "arm reports come first")
    }

    /// A stop requested during the first slice ends the run after it: one backend of three measured, once.
    @Test func aRequestedStopEndsTheRunAfterTheCurrentSlice() throws {
        let slicesStarted = Mutex(0)
        let samples = try LatencyProbe.measure(
            [.floor, .dispatchSource, .tempoPrecise], every: .milliseconds(2), for: .milliseconds(40), rounds: 2,
            shouldStop: {
                slicesStarted.withLock {
                    $0 += 1
                    return $0 > 1
                }
            })
        #expect(samples.map(\.backend) == [.floor])
        #expect(samples.first?.slots == 10)
    }
}
