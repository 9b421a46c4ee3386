import Foundation
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Seeded fuzzing of every public entry point that takes a number, an instant, a duration, a string, a handle or a
/// snapshot (issue #17), with extremes (`Int.min`/`max`, the bounds of `Duration` and `TimerInstant`) and jumps of
/// up to ~300 years on every clock of a `VirtualClock`.
///
/// An entry point passes when it returns or throws its typed error, and nothing traps (a trap ends the test
/// process, which fails the run). Timers also check that no tick is ever delivered before it is due. Each test
/// prints its seed; `TEMPO_SEED=<seed> swift test --filter FuzzTests` replays it, and `TEMPO_FUZZ_CASES` sets the
/// number of cases per entry point (150 by default; CI's AddressSanitizer run uses more).
@Suite struct FuzzTests {
    private static func fuzzer(_ name: String) -> Fuzzer {
        let seed = SeededGenerator.seed()
        print("FuzzTests.\(name) seed \(seed), \(Fuzzer.cases) cases; replay with TEMPO_SEED=\(seed)")
        return Fuzzer(seed: seed)
    }

    /// Records any tick delivered before its due instant on its clock.
    private final class EarlyTicks: Sendable {
        let count = TempoMutex(0)
        func check(_ tick: TimerTick, clock: VirtualClock, on timerClock: TimerClock) {
            if tick.lateness < .zero || (!tick.isManual && tick.due > clock.now(timerClock)) {
                count.withLock { $0 += 1 }
            }
        }
    }

    @Test func timersSurviveExtremeSchedulesOperationsAndClockJumps() {
        var fuzz = Self.fuzzer("timers")
        let early = EarlyTicks()
        for _ in 0..<Fuzzer.cases {
            let clock = VirtualClock()
            let timerClock = fuzz.clock()
            let first: FirstTick =
                switch Int.random(in: 0..<3, using: &fuzz) {
                case 0: .afterInterval
                case 1: .after(fuzz.duration())
                default: .at(TimerDeadline(fuzz.instant(near: clock.now(timerClock)), clock: timerClock))
                }
            // Burst delivers up to a million ticks per wakeup by design; keep it to modest intervals here.
            let policy = fuzz.policy()
            let interval = policy == .burst ? .seconds(Int64.random(in: 1...100, using: &fuzz)) : fuzz.interval()
            guard
                let timer = try? TempoTimer(
                    .every(
                        interval, repeats: fuzz.repeats(), first: first, leeway: fuzz.duration(), latePolicy: policy,
                        delivery: .immediate, clock: timerClock), scheduler: clock,
                    { early.check($0, clock: clock, on: timerClock) })
            else { continue }
            timer.start()
            // The interval in force: a jump's monotonic step is bounded by it, because the virtual clock runs every
            // deadline on the way. Bounding it by the first interval let a reset to 1 ns followed by a jump of 100
            // hour-long intervals step through ~10^14 deadlines (a CI run hung there).
            var current = interval
            for _ in 0..<6 {
                switch Int.random(in: 0..<8, using: &fuzz) {
                case 0: timer.pause()
                case 1: timer.resume()
                case 2:
                    let next = policy == .burst ? .seconds(Int64.random(in: 1...100, using: &fuzz)) : fuzz.interval()
                    if (try? timer.reset(interval: next)) != nil { current = next }
                case 3: try? timer.setLeeway(fuzz.duration())
                case 4: _ = timer.fire()
                default:
                    let limit = Fuzzer.steps(of: current)
                    fuzz.jump(clock, monotonicLimit: policy == .burst ? min(.seconds(1), limit) : limit)
                }
                if let left = timer.timeUntilNextTick { #expect(left >= .zero) }
            }
            timer.cancel()
        }
        #expect(early.count.withLock { $0 } == 0)
    }

    @Test func oneShotsAndTheParserSurviveExtremeInput() {
        var fuzz = Self.fuzzer("oneShotsAndParser")
        for _ in 0..<Fuzzer.cases {
            let clock = VirtualClock()
            let timerClock = fuzz.clock()
            (try? TempoTimer(.after(fuzz.duration(), clock: timerClock), scheduler: clock) { _ in }.start())?.start()
            let deadline = fuzz.instant(near: clock.now(timerClock))
            (try? TempoTimer(.at(TimerDeadline(deadline, clock: timerClock)), scheduler: clock) { _ in }.start())?
                .start()
            fuzz.jump(clock, monotonicLimit: .milliseconds(1))
            if let parsed = try? DurationParser.parse(fuzz.text()) {
                #expect(parsed > .zero && parsed <= TempoError.maximumDuration)
            }
        }
    }

    @Test func theToolkitSurvivesExtremeInputAndClockJumps() {
        var fuzz = Self.fuzzer("toolkit")
        for _ in 0..<Fuzzer.cases {
            let clock = VirtualClock()
            // One interval for every repeating type, so that a monotonic jump runs at most 100 of its deadlines.
            let period = fuzz.interval()
            let registry = TimerRegistry<String>(scheduler: clock)
            let key = fuzz.chance(10) ? "" : fuzz.text()
            _ = try? registry.schedule(key, .every(period, repeats: fuzz.repeats(), delivery: .immediate)) { _ in }
            let ticker = try? SharedTicker(.every(period, leeway: fuzz.duration()), scheduler: clock)
            let subscription = try? ticker?.subscribe(everyNth: fuzz.count()) { _ in }
            let countdown = try? Countdown(
                duration: fuzz.duration(), every: period, leeway: fuzz.duration(), scheduler: clock,
                onTick: { _ in }, onFinish: {})
            countdown?.start()
            _ = try? countdown?.add(fuzz.duration())
            let debouncer = try? Debouncer<Int>(delay: fuzz.duration(), leeway: fuzz.duration(), scheduler: clock) {
                _ in
            }
            try? debouncer?.setDelay(fuzz.duration())
            debouncer?.call(1)
            let throttler = try? Throttler<Int>(every: period, leeway: fuzz.duration(), scheduler: clock) { _ in }
            _ = throttler?.call(1)
            for _ in 0..<3 { fuzz.jump(clock, monotonicLimit: Fuzzer.steps(of: period)) }
            _ = registry.contains(key)
            _ = subscription
            countdown?.cancel()
            _ = debouncer?.cancel()
            _ = throttler?.cancel()
            registry.cancelAll()
            ticker?.pause()
        }
    }

    @Test func countdownSnapshotsRestoreOrThrow() throws {
        var fuzz = Self.fuzzer("snapshots")
        for _ in 0..<Fuzzer.cases {
            let clock = VirtualClock()
            let snapshot = Countdown.Snapshot(
                phase: fuzz.pick([.idle, .running, .paused, .finished, .cancelled]), duration: fuzz.duration(),
                period: fuzz.duration(), remaining: fuzz.duration(),
                wallDeadline: fuzz.chance(20) ? nil : fuzz.instant(near: clock.now(.wall)))
            // Through JSON as well, as a relaunched app reads it.
            let decoded = try JSONDecoder().decode(Countdown.Snapshot.self, from: JSONEncoder().encode(snapshot))
            guard
                let countdown = try? Countdown(
                    restoring: decoded, scheduler: clock, onTick: { _ in }, onFinish: {})
            else { continue }
            #expect(countdown.remaining >= .zero && countdown.remaining <= TempoError.maximumDuration)
            countdown.start()
            _ = try? countdown.add(fuzz.duration())
            fuzz.jump(clock, monotonicLimit: Fuzzer.steps(of: decoded.period))
            countdown.pause()
            countdown.resume()
            countdown.cancel()
        }
    }

    @Test func theTimingWheelSurvivesExtremeDeadlinesAndForeignHandles() {
        var fuzz = Self.fuzzer("wheel")
        let clock = VirtualClock()
        let handler = IgnoringHandler()
        guard let other = try? TimingWheel(configuration: .immediate, scheduler: clock, handler: handler) else {
            return
        }
        for _ in 0..<Fuzzer.cases {
            let configuration = TimingWheel.Configuration(
                resolution: fuzz.chance(70) ? .milliseconds(1) : fuzz.duration(), delivery: .immediate,
                initialCapacity: fuzz.chance(70) ? 16 : fuzz.count())
            guard let wheel = try? TimingWheel(configuration: configuration, scheduler: clock, handler: handler) else {
                continue
            }
            var handles: [TimingWheel.Handle] = []
            for _ in 0..<8 {
                if let handle = try? wheel.schedule(at: fuzz.instant(near: wheel.now), value: 1) {
                    handles.append(handle)
                }
                if let handle = try? wheel.schedule(after: fuzz.duration(), {}) { handles.append(handle) }
                if let foreign = try? other.schedule(after: .seconds(1), value: 2) {
                    #expect(!wheel.cancel(foreign))
                    #expect(other.cancel(foreign))
                }
            }
            for handle in handles {
                _ = try? wheel.reschedule(handle, at: fuzz.instant(near: wheel.now))
                _ = try? wheel.reschedule(handle, after: fuzz.duration())
            }
            clock.advance(by: .milliseconds(Int64.random(in: 0...50, using: &fuzz)))
            for handle in handles { _ = wheel.cancel(handle) }
            #expect(wheel.count == 0)
        }
    }

    private final class IgnoringHandler: TimingWheelHandler {
        func timerFired(value: UInt64) {}
    }

    @Test func asyncSequencesValidateExtremeInput() {
        var fuzz = Self.fuzzer("async")
        let clock = VirtualClock()
        for _ in 0..<Fuzzer.cases {
            _ = try? AsyncTickSequence(
                every: fuzz.duration(), repeats: fuzz.repeats(), leeway: fuzz.duration(), latePolicy: fuzz.policy(),
                clock: clock)
        }
    }
}
