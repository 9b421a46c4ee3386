import Tempo
import TempoTesting
import Testing

/// Countdown snapshots whose fields are drawn from the limits of their types (issue #41, the class of bug its
/// Stopwatch finding belongs to): each restores or throws a `TempoError`, and a restored countdown then runs, pauses,
/// grows and is snapshotted again through a far future without trapping.
@Suite struct CountdownSnapshotLimitTests {
    @Test(arguments: 0..<3) func randomSnapshotsAtTheLimitsNeverTrap(round: Int) throws {
        let seed = SeededGenerator.seed()
        print("CountdownSnapshotLimitTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let limits: [Int128] = [
            .min, Int128(Int64.min) * 1_000_000_000, -1, 0, 1, 999_999_999, 1_000_000_000,
            1_000_000_000_000_000_000, Int128(Int64.max) * 1_000_000_000 - 1, Int128(Int64.max) * 1_000_000_000,
            Int128(Int64.max) * 1_000_000_000 + 1, .max,
        ]
        func pick() -> Duration {
            Int.random(in: 0..<4, using: &random) == 0
                ? Duration(attoseconds: Int128.random(in: 0...100_000_000_000_000_000_000, using: &random))
                : Duration(attoseconds: limits.randomElement(using: &random)!)
        }
        let phases: [Countdown.Phase] = [.idle, .running, .paused, .finished, .cancelled]
        var restored = 0
        for step in 0..<500 {
            let wall = TimerInstant(offset: .seconds(Int64.random(in: 0...4_000_000_000, using: &random)))
            let clock = VirtualClock(wall: wall)
            let deadlines: [TimerInstant?] = [
                nil, TimerInstant(offset: pick()),
                wall + .seconds(Int64.random(in: -1_000_000_000...1_000_000_000, using: &random)),
            ]
            let snapshot = Countdown.Snapshot(
                phase: phases.randomElement(using: &random)!, duration: pick(), period: pick(), remaining: pick(),
                wallDeadline: deadlines.randomElement(using: &random)!)
            let countdown: Countdown
            do {
                countdown = try Countdown(
                    restoring: snapshot, delivery: .immediate, scheduler: clock, onTick: { _ in }, onFinish: {})
            } catch {
                #expect(!error.value.isEmpty, "seed \(seed) step \(step)")
                continue
            }
            restored += 1
            _ = countdown.remaining
            countdown.resume()
            countdown.start()
            _ = try? countdown.add(pick())
            // A suspension, not `advance`: the ticks it passes are late and coalesce into one, where `advance` would
            // run each of up to 10^27 one-nanosecond periods in turn.
            clock.suspend(for: .seconds(Int64.random(in: 0...1_000_000_000, using: &random)))
            _ = countdown.remaining
            countdown.pause()
            _ = try? Countdown(
                restoring: countdown.snapshot(), delivery: .immediate, scheduler: clock, onTick: { _ in },
                onFinish: {})
            countdown.cancel()
        }
        #expect(restored > 0, "seed \(seed)")
    }
}
