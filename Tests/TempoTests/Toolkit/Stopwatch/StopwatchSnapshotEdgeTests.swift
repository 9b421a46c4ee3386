import Foundation
import Tempo
import TempoTesting
import Testing

/// Corrupt and extreme `Stopwatch` snapshots (issue #41): each one throws a `TempoError` naming the value, or
/// restores a stopwatch whose every later read and change is trap-free.
@Suite struct StopwatchSnapshotEdgeTests {
    private static func running(elapsed: Duration = .seconds(1), wallTaken: TimerInstant?) -> Stopwatch.Snapshot {
        Stopwatch.Snapshot(phase: .running, elapsed: elapsed, laps: [], lapMark: .zero, wallTaken: wallTaken)
    }

    private static func paused(elapsed: Duration, laps: [Duration] = [], lapMark: Duration = .zero)
        -> Stopwatch.Snapshot
    {
        Stopwatch.Snapshot(phase: .paused, elapsed: elapsed, laps: laps, lapMark: lapMark, wallTaken: nil)
    }

    /// The fuzz pass's case: `now - wallTaken` trapped with "Overflow in -".
    @Test(arguments: [Int128.min, Int128.min + 1, Int128.max])
    func aWallTakenAtTheLimitsOfDurationThrows(attoseconds: Int128) {
        let snapshot = Self.running(wallTaken: TimerInstant(offset: Duration(attoseconds: attoseconds)))
        let error = #expect(throws: TempoError.self) { try Stopwatch(restoring: snapshot, scheduler: VirtualClock()) }
        #expect(error?.code == .invalidInstant)
        #expect(error?.value == "\(TimerInstant(offset: Duration(attoseconds: attoseconds)))")
    }

    @Test func aWallTakenSoLongAgoThatTheElapsedTimeWouldPassTheMaximumThrows() throws {
        let clock = VirtualClock()
        let now = clock.now(.wall)
        let longAgo = Self.running(elapsed: .seconds(2), wallTaken: now - TempoError.maximumDuration)
        let error = #expect(throws: TempoError.self) { try Stopwatch(restoring: longAgo, scheduler: clock) }
        #expect(error?.code == .invalidInstant)
        let farFuture = Self.running(wallTaken: now + TempoError.maximumDuration + .nanoseconds(1))
        #expect(throws: TempoError.self) { try Stopwatch(restoring: farFuture, scheduler: clock) }
        // Exactly the maximum is accepted, and a wall clock set back counts as no gap.
        let edge = Self.running(elapsed: .zero, wallTaken: now - TempoError.maximumDuration)
        #expect(try Stopwatch(restoring: edge, scheduler: clock).elapsed == TempoError.maximumDuration)
        let setBack = Self.running(elapsed: .seconds(1), wallTaken: now + .seconds(3_600))
        #expect(try Stopwatch(restoring: setBack, scheduler: clock).elapsed == .seconds(1))
    }

    /// The fuzz pass's second case: a huge elapsed time, restored paused, trapped on the first read after `resume()`.
    @Test(arguments: [Int128.max, Int128.max / 2, Int128(Int64.max) * 1_000_000_000 + 1])
    func anElapsedTimeAboveTheMaximumThrows(attoseconds: Int128) {
        let snapshot = Self.paused(elapsed: Duration(attoseconds: attoseconds))
        let error = #expect(throws: TempoError.self) { try Stopwatch(restoring: snapshot, scheduler: VirtualClock()) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.value == Duration(attoseconds: attoseconds).exactDescription)
    }

    @Test func theMaximumElapsedTimeRestoresAndKeepsCountingWithoutTrapping() throws {
        let clock = VirtualClock()
        let stopwatch = try Stopwatch(
            restoring: Self.paused(elapsed: TempoError.maximumDuration, laps: [.seconds(1)], lapMark: .seconds(1)),
            scheduler: clock)
        #expect(stopwatch.resume())
        clock.advance(by: .seconds(365 * 86_400))
        #expect(stopwatch.elapsed == TempoError.maximumDuration + .seconds(365 * 86_400))
        #expect(stopwatch.lap() == TempoError.maximumDuration + .seconds(365 * 86_400 - 1))
        // Past the maximum, the snapshot is refused when restored, with an error, not a trap.
        let snapshot = stopwatch.snapshot()
        let error = #expect(throws: TempoError.self) { try Stopwatch(restoring: snapshot, scheduler: clock) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func lapsThatDoNotAddUpToTheLapMarkThrow() throws {
        let clock = VirtualClock()
        let cases: [Stopwatch.Snapshot] = [
            Self.paused(elapsed: .seconds(3), laps: [.seconds(1)], lapMark: .seconds(2)),
            Self.paused(elapsed: .seconds(3), laps: [.seconds(2), .seconds(1)], lapMark: .seconds(2)),
            Self.paused(elapsed: .seconds(3), laps: [], lapMark: .seconds(2)),
            Self.paused(
                elapsed: .seconds(3), laps: [Duration(attoseconds: .max), Duration(attoseconds: .max)],
                lapMark: .seconds(2)),
            Self.paused(elapsed: .seconds(3), laps: [Duration(attoseconds: .min), .seconds(2)], lapMark: .seconds(2)),
        ]
        for snapshot in cases {
            let error = #expect(throws: TempoError.self, "\(snapshot)") {
                try Stopwatch(restoring: snapshot, scheduler: clock)
            }
            #expect(error?.code == .invalidArgument)
        }
        let good = Self.paused(elapsed: .seconds(3), laps: [.seconds(1), .seconds(1)], lapMark: .seconds(2))
        #expect(try Stopwatch(restoring: good, scheduler: clock).laps == [.seconds(1), .seconds(1)])
    }

    /// Snapshots whose fields are drawn from the limits of their types and a few ordinary values: each restores or
    /// throws a `TempoError`; a restored one then runs, laps, pauses and is snapshotted again through a far future.
    @Test(arguments: 0..<4) func randomSnapshotsAtTheLimitsNeverTrap(round: Int) throws {
        let seed = SeededGenerator.seed()
        print("StopwatchSnapshotEdgeTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let limits: [Int128] = [
            .min, .min + 1, Int128(Int64.min) * 1_000_000_000_000_000_000, Int128(Int64.min) * 1_000_000_000,
            Int128(Int64.min), -1, 0, 1, 1_000_000_000, 1_000_000_000_000_000_000, Int128(Int64.max),
            Int128(Int64.max) * 1_000_000_000, Int128(Int64.max) * 1_000_000_000 + 1,
            Int128(Int64.max) * 1_000_000_000_000_000_000, .max - 1, .max,
        ]
        func pick() -> Duration {
            Int.random(in: 0..<4, using: &random) == 0
                ? Duration(attoseconds: Int128.random(in: 0...10_000_000_000_000_000_000, using: &random))
                : Duration(attoseconds: limits.randomElement(using: &random)!)
        }
        var restored = 0
        for step in 0..<2_000 {
            let phase = [Stopwatch.Phase.idle, .running, .paused].randomElement(using: &random)!
            let laps = (0..<Int.random(in: 0..<3, using: &random)).map { _ in pick() }
            let wallTaken = Bool.random(using: &random) ? TimerInstant(offset: pick()) : nil
            let snapshot = Stopwatch.Snapshot(
                phase: phase, elapsed: pick(), laps: laps, lapMark: pick(), wallTaken: wallTaken)
            let wall = TimerInstant(offset: .seconds(Int64.random(in: 0...4_000_000_000, using: &random)))
            let clock = VirtualClock(wall: wall)
            let stopwatch: Stopwatch
            do {
                stopwatch = try Stopwatch(restoring: snapshot, clock: .wall, scheduler: clock)
            } catch {
                #expect(!error.value.isEmpty, "seed \(seed) step \(step)")
                continue
            }
            restored += 1
            _ = stopwatch.elapsed
            stopwatch.resume()
            clock.advance(by: .seconds(Int64.random(in: 0...1_000_000_000, using: &random)))
            _ = stopwatch.lap()
            _ = stopwatch.elapsed
            clock.adjustWallClock(by: .seconds(Int64.random(in: -4_000_000_000...4_000_000_000, using: &random)))
            _ = stopwatch.lap()
            stopwatch.pause()
            _ = try? Stopwatch(restoring: stopwatch.snapshot(), scheduler: clock)
        }
        #expect(restored > 0, "seed \(seed)")
    }
}
