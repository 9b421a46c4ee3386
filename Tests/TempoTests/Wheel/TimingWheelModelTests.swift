import Synchronization
import TempoTesting
import Testing

@testable import Tempo

/// Randomized tests: the wheel against ``WheelReference`` on the same operations, with a printed seed.
///
/// Replay a failure with `TEMPO_SEED=<seed> swift test --disable-xctest --filter TimingWheelModelTests`.
@Suite struct TimingWheelModelTests {
    /// A random deadline offset from `now` (in ticks): mostly near, sometimes far, past or beyond reach.
    static func randomDelay(_ rng: inout SeededGenerator) -> Int64 {
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<45: Int64.random(in: 0..<70, using: &rng)
        case 45..<70: Int64.random(in: 0..<5_000, using: &rng)
        case 70..<85: Int64.random(in: 0..<(1 << 24), using: &rng)
        case 85..<92: Int64.random(in: 0..<(1 << 40), using: &rng)  // the overflow list
        default: -Int64.random(in: 0..<100, using: &rng)  // already due
        }
    }

    /// Runs `operations` random operations on a core and the reference; returns the number of timers fired.
    static func run(seed: UInt64, operations: Int, tickNanoseconds: Int64) -> Int {
        var rng = SeededGenerator(seed: seed)
        var core = WheelCore(tickNanoseconds: tickNanoseconds, initialCapacity: 16)
        var reference = WheelReference(tickNanoseconds: tickNanoseconds)
        var handles: [(index: UInt32, sequence: UInt64)] = []
        var stale: [(index: UInt32, sequence: UInt64)] = []
        var buffer = ContiguousArray<WheelCore.Fired>()
        var fired = 0
        var nextValue: UInt64 = 0
        func nanoseconds(_ ticks: Int64) -> Int64 {
            (core.now + ticks) * tickNanoseconds + Int64.random(in: -tickNanoseconds + 1...0, using: &rng)
        }
        for step in 0..<operations {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<40:
                let deadline = nanoseconds(randomDelay(&rng))
                let (index, sequence, _) = core.insert(deadline: deadline, value: nextValue, action: nil)
                reference.arm(sequence: sequence, deadline: deadline, value: nextValue)
                handles.append((index, sequence))
                nextValue += 1
            case 40..<55 where !handles.isEmpty:
                let victim = handles.remove(at: Int.random(in: 0..<handles.count, using: &rng))
                let removed = core.remove(victim.index, victim.sequence) != nil
                #expect(removed == reference.cancel(sequence: victim.sequence), "seed \(seed), step \(step)")
                stale.append(victim)
            case 55..<60 where !stale.isEmpty:
                let victim = stale[Int.random(in: 0..<stale.count, using: &rng)]
                let removed = core.remove(victim.index, victim.sequence) != nil
                #expect(!removed, "stale handle cancelled a timer; seed \(seed), step \(step)")
                #expect(core.reschedule(victim.index, victim.sequence, deadline: 0) == nil, "seed \(seed)")
            case 60..<78 where !handles.isEmpty:
                let handle = handles[Int.random(in: 0..<handles.count, using: &rng)]
                guard let current = core.deadline(handle.index, handle.sequence) else { continue }
                let later = Bool.random(using: &rng) || Int.random(in: 0..<4, using: &rng) > 0
                let deadline =
                    later
                    ? current + Int64.random(in: 0..<(tickNanoseconds * 200), using: &rng)
                    : nanoseconds(randomDelay(&rng))
                let moved = core.reschedule(handle.index, handle.sequence, deadline: deadline) != nil
                #expect(moved == reference.reschedule(sequence: handle.sequence, deadline: deadline), "seed \(seed)")
            default:
                let target: Int64
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<6: target = core.now + Int64.random(in: 0..<8, using: &rng)
                case 6..<9: target = core.now + Int64.random(in: 0..<3_000, using: &rng)
                default: target = core.nextExpiration().map { $0.tick } ?? core.now
                }
                if Int.random(in: 0..<20, using: &rng) == 0 {
                    core.skipIdle(to: target)  // only moves when nothing comes due on the way
                }
                buffer.removeAll(keepingCapacity: true)
                core.advance(to: target, into: &buffer)
                let expected = reference.advance(to: target)
                let actual = buffer.map(\.value)
                if actual != expected {
                    Issue.record("seed \(seed), step \(step), advance to \(target): \(actual) != \(expected)")
                    return fired
                }
                fired += actual.count
                let firedSequences = Set(buffer.map(\.sequence))
                if !firedSequences.isEmpty {
                    for handle in handles where firedSequences.contains(handle.sequence) { stale.append(handle) }
                    handles.removeAll { firedSequences.contains($0.sequence) }
                }
                if stale.count > 1_000 { stale.removeFirst(500) }
            }
            #expect(core.count == reference.count, "seed \(seed), step \(step)")
            if step % 997 == 0 { core._checkInvariants() }
        }
        core._checkInvariants()
        // Drain: everything left fires in order by the end of time.
        buffer.removeAll(keepingCapacity: true)
        core.advance(to: Int64.max / tickNanoseconds, into: &buffer)
        #expect(buffer.map(\.value) == reference.advance(to: Int64.max / tickNanoseconds), "seed \(seed), drain")
        core._checkInvariants()
        return fired + buffer.count
    }

    @Test(arguments: [Int64(1), 7, 1_000_000])
    func wheelFiresTheSameTimersInTheSameOrderAsAReferenceHeap(tickNanoseconds: Int64) {
        let seed = SeededGenerator.seed()
        print("TimingWheelModelTests seed \(seed) (tick \(tickNanoseconds) ns); replay with TEMPO_SEED=\(seed)")
        var rng = SeededGenerator(seed: seed)
        var fired = 0
        for _ in 0..<6 {
            fired += Self.run(seed: rng.next(), operations: 80_000, tickNanoseconds: tickNanoseconds)
        }
        #expect(fired > 10_000)
    }
}

@Suite struct TimingWheelArithmeticTests {
    @Test func dividingByABillionMatchesTheGenericDivision() {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        var cases: [(UInt64, UInt64)] = [(0, 0), (0, .max), (1, 0), (499_999_999, .max), (3, 999_999_999)]
        for _ in 0..<100_000 {
            cases.append((UInt64.random(in: 0..<500_000_000, using: &rng), rng.next()))
        }
        for (high, low) in cases {
            let value = UInt128(high) << 64 | UInt128(low)
            let expected = value.quotientAndRemainder(dividingBy: 1_000_000_000)
            guard let actual = Duration.dividedByBillion(high: high, low: low) else {
                Issue.record("no result for \(value); seed \(seed)")
                return
            }
            #expect(UInt128(actual.quotient) == expected.quotient, "\(value); seed \(seed)")
            #expect(UInt128(actual.remainder) == expected.remainder, "\(value); seed \(seed)")
        }
        #expect(Duration.dividedByBillion(high: 500_000_000, low: 0) == nil)
    }

    @Test func deadlinesRoundUpToTheNanosecondAndPastOnesDoNotRoundEarlier() throws {
        let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(5)))
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock)
        let attosecond = Duration(secondsComponent: 0, attosecondsComponent: 1)
        #expect(try wheel.nanoseconds(TimerInstant(offset: .seconds(5)) + attosecond) == 1)
        #expect(try wheel.nanoseconds(TimerInstant(offset: .seconds(6))) == 1_000_000_000)
        #expect(try wheel.nanoseconds(TimerInstant(offset: .seconds(5)) - attosecond) == 0)
        #expect(try wheel.nanoseconds(TimerInstant(offset: .seconds(4)) - .nanoseconds(1) / 2) == -1_000_000_000)
        #expect(try wheel.nanoseconds(.zero) == -5_000_000_000)
    }
}
