import Tempo
import Testing

/// The package's `Duration` conversions (issue #43): exact inside their range, saturated or rounded at the limits,
/// never a trap, for negative durations too.
@Suite struct DurationConversionTests {
    /// The largest duration with whole seconds in `Int64`, and one a second beyond it (where `components` traps).
    private let largest = Duration(secondsComponent: .max, attosecondsComponent: 999_999_999_999_999_999)
    private let beyond = Duration(secondsComponent: .max, attosecondsComponent: 0) + .seconds(1)
    private let smallest = Duration(secondsComponent: .min, attosecondsComponent: -999_999_999_999_999_999)
    private let below = Duration(secondsComponent: .min, attosecondsComponent: 0) - .seconds(1)
    private let half = Duration.nanoseconds(1) / 2

    @Test func nanosecondsRoundAsAskedInBothDirections() {
        #expect(Duration.milliseconds(1500).nanoseconds(rounded: .down) == 1_500_000_000)
        #expect(Duration.milliseconds(1500).nanoseconds(rounded: .up) == 1_500_000_000)
        #expect((Duration.nanoseconds(7) + half).nanoseconds(rounded: .down) == 7)
        #expect((Duration.nanoseconds(7) + half).nanoseconds(rounded: .up) == 8)
        #expect((Duration.nanoseconds(-7) - half).nanoseconds(rounded: .down) == -8)
        #expect((Duration.nanoseconds(-7) - half).nanoseconds(rounded: .up) == -7)
        #expect(Duration.zero.nanoseconds(rounded: .up) == 0)
    }

    /// The conversion's fast path (no 128-bit division, for non-negative durations below about 2^63 ns) agrees with
    /// the generic division everywhere: random durations of every magnitude up to 2^100 attoseconds, and each side of
    /// the fast path's bound.
    @Test func nanosecondsAgreeWithTheGenericDivisionAtEveryMagnitude() {
        func expected(_ attoseconds: Int128, _ rule: Duration.NanosecondRounding) -> Int64 {
            let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
            switch rule {
            case .down: return Int64(clamping: remainder < 0 ? quotient - 1 : quotient)
            case .up: return Int64(clamping: remainder > 0 ? quotient + 1 : quotient)
            }
        }
        var generator = SystemRandomNumberGenerator()
        var values: [Int128] = [0, 1, 999_999_999, 1_000_000_000, 1_000_000_001]
        let bound = Int128(500_000_000) << 64
        values += [bound - 1, bound, bound + 1, Int128(Int64.max) * 1_000_000_000 + 999_999_999]
        for bits in 1...100 {
            for _ in 0..<200 {
                values.append(Int128(UInt128.random(in: 0..<(UInt128(1) << bits), using: &generator)))
            }
        }
        for value in values {
            for rule in [Duration.NanosecondRounding.down, .up] {
                let duration = Duration(attoseconds: value)
                #expect(duration.nanoseconds(rounded: rule) == expected(value, rule), "\(value) \(rule)")
                #expect(
                    Duration(attoseconds: -value).nanoseconds(rounded: rule) == expected(-value, rule),
                    "-\(value) \(rule)")
            }
        }
    }

    @Test func nanosecondsSaturateAtTheLimits() {
        #expect(Duration.seconds(Int64.max).nanoseconds(rounded: .down) == .max)
        #expect(Duration.seconds(Int64.max).nanoseconds(rounded: .up) == .max)
        #expect(largest.nanoseconds(rounded: .down) == .max)
        #expect(beyond.nanoseconds(rounded: .up) == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds(rounded: .up) == .min)
        #expect(below.nanoseconds(rounded: .down) == .min)
        #expect(Duration.nanoseconds(Int64.max).nanoseconds(rounded: .up) == .max)
        #expect(Duration.nanoseconds(Int64.min).nanoseconds(rounded: .down) == .min)
        #expect((Duration.nanoseconds(Int64.max) - half).nanoseconds(rounded: .up) == .max)
        #expect((Duration.nanoseconds(Int64.max) - half).nanoseconds(rounded: .down) == .max - 1)
    }

    @Test func microsecondsRoundAsAskedAndSaturate() {
        #expect(Duration.seconds(30).microseconds(rounded: .down) == 30_000_000)
        #expect(Duration.nanoseconds(1_999).microseconds(rounded: .down) == 1)
        #expect(Duration.nanoseconds(1_001).microseconds(rounded: .up) == 2)
        #expect(Duration.nanoseconds(-1_001).microseconds(rounded: .down) == -2)
        #expect(Duration.nanoseconds(-1_999).microseconds(rounded: .up) == -1)
        #expect(Duration.seconds(Int64.max).microseconds(rounded: .down) == .max)
        #expect(beyond.microseconds(rounded: .up) == .max)
        #expect(Duration.seconds(Int64.min).microseconds(rounded: .up) == .min)
        #expect(below.microseconds(rounded: .down) == .min)
    }

    @Test func secondsAsADoubleKeepTheFractionAndNeverTrap() {
        #expect(Duration.milliseconds(1500).inSeconds == 1.5)
        #expect(Duration.milliseconds(-1500).inSeconds == -1.5)
        #expect(Duration.nanoseconds(1).inSeconds == 1e-9)
        #expect(Duration.zero.inSeconds == 0)
        #expect(Duration.seconds(Int64.max).inSeconds == Double(Int64.max))
        #expect(Duration.seconds(Int64.min).inSeconds == Double(Int64.min))
        #expect(beyond.inSeconds == Double(Int64.max) + 1)
        #expect(below.inSeconds == Double(Int64.min) - 1)
        let farthest = Duration(attoseconds: .max).inSeconds
        #expect(farthest.isFinite && farthest > 1.7e20)
        #expect(Duration(attoseconds: .min).inSeconds < -1.7e20)
    }

    @Test func saturatingComponentsAreComponentsInsideTheRangeAndSaturateBeyondIt() {
        for duration in [
            Duration.zero, .milliseconds(1500), .milliseconds(-1500), .seconds(Int64.max), largest, smallest,
        ] {
            #expect(duration.saturatingComponents == duration.components)
        }
        #expect(beyond.saturatingComponents == (Int64.max, 999_999_999_999_999_999))
        #expect(Duration(attoseconds: .max).saturatingComponents == (Int64.max, 999_999_999_999_999_999))
        #expect(below.saturatingComponents == (Int64.min, -999_999_999_999_999_999))
        #expect(Duration(attoseconds: .min).saturatingComponents == (Int64.min, -999_999_999_999_999_999))
    }

    @Test func exactNanosecondsOnlyForWholeNanosecondsInRange() {
        #expect(Duration.milliseconds(2).exactNanoseconds == 2_000_000)
        #expect(Duration.nanoseconds(-3).exactNanoseconds == -3)
        #expect((Duration.nanoseconds(3) + half).exactNanoseconds == nil)
        #expect(Duration.seconds(Int64.max).exactNanoseconds == nil)
        #expect(below.exactNanoseconds == nil)
    }
}
