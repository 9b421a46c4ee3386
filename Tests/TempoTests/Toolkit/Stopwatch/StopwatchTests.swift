import Foundation
import Tempo
import TempoTesting
import Testing

@Suite struct StopwatchTests {
    @Test func elapsedCountsRunningTimeOnlyAndLapsAddUp() {
        let clock = VirtualClock()
        let stopwatch = Stopwatch(scheduler: clock)
        #expect(stopwatch.lap() == nil)
        #expect(stopwatch.start())
        clock.advance(by: .seconds(3))
        #expect(stopwatch.lap() == .seconds(3))
        #expect(stopwatch.pause())
        clock.advance(by: .seconds(100))
        #expect(stopwatch.elapsed == .seconds(3))
        #expect(!stopwatch.pause())
        #expect(stopwatch.resume())
        clock.advance(by: .milliseconds(1_500))
        #expect(stopwatch.lap() == .milliseconds(1_500))
        #expect(stopwatch.laps == [.seconds(3), .milliseconds(1_500)])
        #expect(stopwatch.elapsed == .milliseconds(4_500))
        stopwatch.reset()
        #expect(stopwatch.phase == .idle && stopwatch.elapsed == .zero && stopwatch.laps.isEmpty)
    }

    @Test func theMonotonicClockStopsDuringSleepAndTheContinuousOneDoesNot() {
        let clock = VirtualClock()
        let awake = Stopwatch(clock: .monotonic, scheduler: clock)
        let waited = Stopwatch(clock: .continuous, scheduler: clock)
        awake.start()
        waited.start()
        clock.advance(by: .seconds(1))
        clock.suspend(for: .seconds(60))
        #expect(awake.elapsed == .seconds(1))
        #expect(waited.elapsed == .seconds(61))
    }

    @Test func aRunningSnapshotRestoredInALaterProcessCountsTheGapOnTheWallClock() throws {
        let before = VirtualClock()
        let stopwatch = Stopwatch(clock: .continuous, scheduler: before)
        stopwatch.start()
        before.advance(by: .seconds(10))
        stopwatch.lap()
        let data = try JSONEncoder().encode(stopwatch.snapshot())
        // The app is relaunched 50 s later (after a reboot: the continuous clock starts again from zero).
        let after = VirtualClock(wall: before.now(.wall) + .seconds(50))
        let snapshot = try JSONDecoder().decode(Stopwatch.Snapshot.self, from: data)
        let restored = try Stopwatch(restoring: snapshot, clock: .continuous, scheduler: after)
        #expect(restored.phase == .running)
        #expect(restored.elapsed == .seconds(60))
        after.advance(by: .seconds(5))
        #expect(restored.lap() == .seconds(55))
        #expect(restored.laps == [.seconds(10), .seconds(55)])
    }

    @Test func aPausedSnapshotComesBackPausedAndAWallClockSetBackCountsAsNoGap() throws {
        let before = VirtualClock()
        let stopwatch = Stopwatch(scheduler: before)
        stopwatch.start()
        before.advance(by: .seconds(7))
        stopwatch.pause()
        let paused = try Stopwatch(restoring: stopwatch.snapshot(), scheduler: VirtualClock())
        #expect(paused.phase == .paused && paused.elapsed == .seconds(7))
        stopwatch.resume()
        let running = stopwatch.snapshot()
        let setBack = VirtualClock(wall: before.now(.wall) - .seconds(3_600))
        #expect(try Stopwatch(restoring: running, scheduler: setBack).elapsed == .seconds(7))
    }

    @Test func badSnapshotsThrowNamingTheValue() {
        let negative = Stopwatch.Snapshot(
            phase: .paused, elapsed: .seconds(-1), laps: [], lapMark: .zero, wallTaken: nil)
        let error = #expect(throws: TempoError.self) { try Stopwatch(restoring: negative, scheduler: VirtualClock()) }
        #expect(error?.code == .invalidArgument && error?.message.contains("-1") == true)
        let running = Stopwatch.Snapshot(
            phase: .running, elapsed: .seconds(1), laps: [], lapMark: .zero, wallTaken: nil)
        let missing = #expect(throws: TempoError.self) { try Stopwatch(restoring: running, scheduler: VirtualClock()) }
        #expect(missing?.code == .invalidInstant)
        let mark = Stopwatch.Snapshot(
            phase: .paused, elapsed: .seconds(1), laps: [], lapMark: .seconds(2), wallTaken: nil)
        #expect(throws: TempoError.self) { try Stopwatch(restoring: mark, scheduler: VirtualClock()) }
    }

    @Test(arguments: 0..<4) func randomOperationsMatchARunningSum(round: Int) {
        let seed = SeededGenerator.seed()
        print("StopwatchTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let stopwatch = Stopwatch(scheduler: clock)
        // The reference adds each step of time while running, instead of reading a clock.
        var phase = Stopwatch.Phase.idle
        var elapsed = Duration.zero
        var mark = Duration.zero
        var laps: [Duration] = []
        for step in 0..<5_000 {
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                #expect(stopwatch.start() == (phase == .idle), "seed \(seed) step \(step)")
                if phase == .idle { phase = .running }
            case 1:
                #expect(stopwatch.pause() == (phase == .running), "seed \(seed) step \(step)")
                if phase == .running { phase = .paused }
            case 2:
                #expect(stopwatch.resume() == (phase == .paused), "seed \(seed) step \(step)")
                if phase == .paused { phase = .running }
            case 3:
                let expected: Duration? = phase == .idle ? nil : elapsed - mark
                #expect(stopwatch.lap() == expected, "seed \(seed) step \(step)")
                if let expected {
                    laps.append(expected)
                    mark = elapsed
                }
            case 4 where Int.random(in: 0..<20, using: &random) == 0:
                stopwatch.reset()
                (phase, elapsed, mark, laps) = (.idle, .zero, .zero, [])
            default:
                let delta = Duration(attoseconds: Int128.random(in: 0...5_000_000_000_000_000_000, using: &random))
                clock.advance(by: delta)
                if phase == .running { elapsed += delta }
            }
            #expect(stopwatch.elapsed == elapsed && stopwatch.phase == phase, "seed \(seed) step \(step)")
            #expect(stopwatch.laps == laps, "seed \(seed) step \(step)")
        }
    }
}
