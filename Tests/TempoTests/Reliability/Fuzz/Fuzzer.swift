import Tempo
import TempoTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Values for fuzzing the public API (issue #17): the extremes of every numeric input mixed with random values,
/// from a seeded generator so that a failure replays with `TEMPO_SEED`.
struct Fuzzer: RandomNumberGenerator {
    /// Cases per entry point: `TEMPO_FUZZ_CASES` from the environment (CI's sanitizer run raises it), else 150.
    static let cases: Int = {
        guard let text = getenv("TEMPO_FUZZ_CASES").map({ String(cString: $0) }), let cases = Int(text) else {
            return 150
        }
        return max(1, cases)
    }()

    private var random: SeededGenerator

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    mutating func next() -> UInt64 { random.next() }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

    static let extremeDurations: [Duration] = [
        .zero, Duration(attoseconds: 1), Duration(attoseconds: -1), .nanoseconds(1), .nanoseconds(-1),
        Duration(attoseconds: 999_999_999), .seconds(300 * 365 * 86_400), TempoError.maximumDuration,
        TempoError.maximumDuration + .nanoseconds(1), TempoError.maximumDuration / 2, .seconds(Int64.max),
        .seconds(Int64.min), Duration(attoseconds: .max), Duration(attoseconds: .min),
    ]

    /// An extreme duration, or a random one: whole nanoseconds of any size, or any attosecond count.
    mutating func duration() -> Duration {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: pick(Self.extremeDurations)
        case 1: .nanoseconds(Int64.random(in: 1...1_000_000_000, using: &random))
        case 2: .nanoseconds(Int64.random(in: .min ... .max, using: &random))
        default: Duration(attoseconds: Int128(Int64.random(in: .min ... .max, using: &random)) << 40)
        }
    }

    /// A usable interval (1 µs to 1 h) most of the time, otherwise any duration.
    mutating func interval() -> Duration {
        chance(70) ? .microseconds(Int64.random(in: 1...3_600_000_000, using: &random)) : duration()
    }

    /// An instant near `now`, at the bounds of `TimerInstant`, or anywhere.
    mutating func instant(near now: TimerInstant) -> TimerInstant {
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            now.checkedAdvanced(by: .nanoseconds(Int64.random(in: -1_000_000...1_000_000_000, using: &random))) ?? now
        case 1: TimerInstant(offset: pick(Self.extremeDurations))
        default: TimerInstant(offset: duration())
        }
    }

    mutating func count() -> Int {
        chance(50) ? Int.random(in: 1...1_000, using: &random) : pick([0, -1, 1, Int.max, Int.min, Int.max - 1])
    }

    mutating func repeats() -> TimerRepeats {
        switch Int.random(in: 0..<3, using: &random) {
        case 0: .once
        case 1: .times(count())
        default: .forever
        }
    }

    mutating func policy() -> LateTickPolicy { pick(LateTickPolicy.allCases) }

    mutating func clock() -> TimerClock { pick([.monotonic, .continuous, .wall]) }

    /// Text for the duration parser: well-formed, malformed, huge, or random bytes.
    mutating func text() -> String {
        let pieces = ["", "0", "1", "ns", "us", "µs", "ms", "s", "m", "h", "d", ".", "-", "+", " ", "e", "9"]
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return "\(Int64.random(in: .min ... .max, using: &random))\(pick(["ns", "ms", "s", "h", "d"]))"
        case 1: return (0..<Int.random(in: 0...8, using: &random)).map { _ in pick(pieces) }.joined()
        case 2:
            return String(repeating: "9", count: Int.random(in: 1...200, using: &random)) + pick(["s", "ns", ".5d"])
        default:
            let scalars = (0..<Int.random(in: 0...12, using: &random)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x2FFF, using: &random))
            }
            return String(String.UnicodeScalarView(scalars))
        }
    }

    /// How far the monotonic clock may move in one jump for a timer of `interval`: 100 intervals (the virtual
    /// clock runs each deadline on the way), or 1 s when the interval is not a valid one.
    static func steps(of interval: Duration) -> Duration {
        interval > .zero && interval <= .seconds(3600) ? interval * 100 : .seconds(1)
    }

    /// Moves every clock of `clock` by a jump of up to about 300 years, without stepping through each deadline
    /// of a short-interval timer on the way: suspension moves the continuous and wall clocks in one step, and
    /// the wall clock is set forwards or backwards; the monotonic clock moves by at most `monotonicLimit`.
    mutating func jump(_ clock: VirtualClock, monotonicLimit: Duration) {
        let far = pick([Duration.nanoseconds(1), .seconds(1), .seconds(300 * 365 * 86_400), TempoError.maximumDuration])
        switch Int.random(in: 0..<3, using: &random) {
        case 0: clock.suspend(for: far)
        case 1: clock.adjustWallClock(by: chance(50) ? far : .zero - far)
        default: clock.advance(by: min(far, monotonicLimit))
        }
    }
}
