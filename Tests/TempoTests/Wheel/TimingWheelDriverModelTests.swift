import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// The public, thread-safe API and its driver on `VirtualClock` against ``WheelReference``.
@Suite struct TimingWheelDriverModelTests {
    static let tick: Int64 = 1_000_000

    /// Records what fired, with the virtual instant, and checks it never fires before its deadline.
    final class Recorder: TimingWheelHandler {
        let clock: VirtualClock
        let fired = TempoMutex<[(value: UInt64, at: TimerInstant)]>([])
        init(clock: VirtualClock) { self.clock = clock }
        func timerFired(value: UInt64) {
            let now = clock.now(.monotonic)
            fired.withLock { $0.append((value, now)) }
        }
        func take() -> [(value: UInt64, at: TimerInstant)] {
            fired.withLock { fired in
                defer { fired.removeAll() }
                return fired
            }
        }
    }

    @Test func driverOnVirtualTimeFiresLikeTheReference() throws {
        let seed = SeededGenerator.seed()
        print("TimingWheelDriverModelTests seed \(seed); replay with TEMPO_SEED=\(seed)")
        var rng = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let recorder = Recorder(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: recorder)
        var reference = WheelReference(tickNanoseconds: Self.tick)
        var handles: [UInt64: TimingWheel.Handle] = [:]  // value -> handle
        var live: [UInt64] = []  // the keys of `handles`, for a random pick in O(1)
        var position: [UInt64: Int] = [:]
        func forget(_ value: UInt64) {
            guard let index = position.removeValue(forKey: value) else { return }
            let last = live.removeLast()
            if index < live.count {
                live[index] = last
                position[last] = index
            }
            handles[value] = nil
        }
        var deadlines: [UInt64: TimerInstant] = [:]
        var setAt: [UInt64: TimerInstant] = [:]
        var nextValue: UInt64 = 0
        var fired = 0
        func randomDeadline() -> TimerInstant {
            let ticks: Int64 =
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5: .random(in: 0..<80, using: &rng)
                case 5..<8: .random(in: 0..<10_000, using: &rng)
                case 8: .random(in: 0..<50_000_000, using: &rng)
                default: -.random(in: 0..<5, using: &rng)
                }
            return clock.now(.monotonic) + .nanoseconds(ticks * Self.tick + .random(in: 0..<Self.tick, using: &rng))
        }
        for step in 0..<60_000 {
            let now = clock.now(.monotonic)
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<40:
                let deadline = randomDeadline()
                let handle = try wheel.schedule(at: deadline, value: nextValue)
                // Sequence numbers are the wheel's; the reference only needs the same order: arm order.
                reference.arm(sequence: nextValue + 1, deadline: Int64(deadline.nanosecondsRoundedUp), value: nextValue)
                (handles[nextValue], deadlines[nextValue], setAt[nextValue]) = (handle, deadline, now)
                position[nextValue] = live.count
                live.append(nextValue)
                nextValue += 1
            case 40..<55:
                guard let value = live.randomElement(using: &rng) else { continue }
                #expect(wheel.cancel(handles[value]!) == reference.cancel(sequence: value + 1), "seed \(seed)")
                forget(value)
            case 55..<70:
                guard let value = live.randomElement(using: &rng) else { continue }
                let deadline =
                    Bool.random(using: &rng)
                    ? deadlines[value]! + .nanoseconds(Int64.random(in: 0..<(Self.tick * 100), using: &rng))
                    : randomDeadline()
                let moved = try wheel.reschedule(handles[value]!, at: deadline)
                let expected = reference.reschedule(sequence: value + 1, deadline: deadline.nanosecondsRoundedUp)
                #expect(moved == expected, "seed \(seed), step \(step)")
                (deadlines[value], setAt[value]) = (deadline, now)
            default:
                let step: Duration =
                    Int.random(in: 0..<4, using: &rng) == 0
                    ? .nanoseconds(Int64.random(in: 0..<(Self.tick * 5_000), using: &rng))
                    : .nanoseconds(Int64.random(in: 0..<(Self.tick * 3), using: &rng))
                clock.advance(by: step)
                let tick = clock.now(.monotonic).offset.wholeMultiples(of: .nanoseconds(Self.tick))
                let expected = reference.advance(to: Int64(tick))
                let actual = recorder.take()
                guard actual.map(\.value) == expected else {
                    Issue.record("seed \(seed), step \(step): fired \(actual.map(\.value)), expected \(expected)")
                    return
                }
                fired += actual.count
                for (value, at) in actual {
                    #expect(at >= deadlines[value]!, "fired early; seed \(seed)")
                    #expect(at < max(deadlines[value]!, setAt[value]!) + .nanoseconds(Self.tick), "late; seed \(seed)")
                    forget(value)
                }
            }
            if step % 500 == 0 { wheel._checkInvariants() }
        }
        wheel._checkInvariants()
        #expect(wheel.count == reference.count)
        #expect(fired > 10_000)
    }
}
