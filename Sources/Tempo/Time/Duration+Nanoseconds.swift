/// The package's conversions of a `Duration` to other units: every target converts through these, never through
/// `components` arithmetic of its own. None of them traps, whatever the duration (a `Duration` holds up to 2^127
/// attoseconds, about 1.7 · 10^20 seconds, beyond `Int64` seconds, where `components` itself traps): the integer
/// ones saturate, the `Double` one rounds.
extension Duration {
    /// How ``nanoseconds(rounded:)`` and ``microseconds(rounded:)`` round a duration that is not a whole number of
    /// the unit.
    package enum NanosecondRounding: Sendable {
        /// Toward negative infinity: a clock reading never counts as later than it is.
        case down
        /// Toward positive infinity: a deadline is never brought forward, a sleep never cut short.
        case up
    }

    /// The duration in whole nanoseconds, rounded as `rule` says and saturated to `Int64`: the package's one
    /// conversion from attoseconds to nanoseconds (instants, plans, the wheel's tick, the measuring tools, a
    /// `timespec`).
    ///
    /// The timing wheel keeps a division of its own on its arm path (`TimingWheel.dividedByBillion`, no 128-bit
    /// division), which rounds up as `.up` does and reports an out-of-range deadline instead of saturating.
    ///
    /// - Parameter rule: Which way to round a remainder.
    /// - Returns: The nanoseconds, or `Int64.min` / `Int64.max` beyond that range (about 292 years either way).
    package func nanoseconds(rounded rule: NanosecondRounding) -> Int64 {
        // A deadline or a clock reading (non-negative, within about 146 years) divides with no 128-bit division: a
        // generic one cost a call to `__divti3` on each timer's arm.
        if attoseconds >= 0,
            let (quotient, remainder) = Self.dividedByBillion(
                high: UInt64(truncatingIfNeeded: attoseconds >> 64), low: UInt64(truncatingIfNeeded: attoseconds))
        {
            // quotient < 2^63.
            let whole = Int64(quotient)
            guard rule == .up, remainder > 0 else { return whole }
            return whole == .max ? .max : whole + 1
        }
        return Self.whole(attoseconds, per: 1_000_000_000, rounded: rule)
    }

    /// `(high · 2^64 + low) / 10^9` and its remainder, or `nil` when the quotient may not fit in 63 bits.
    ///
    /// This is on the path of every arm (the timing wheel's, and every conversion of a deadline to nanoseconds), so it
    /// avoids a generic 128-bit division: with
    /// 2^64 = 18,446,744,073 · 10^9 + 709,551,616 it needs only multiplications and one 64-bit division by
    /// a constant (which the compiler turns into a multiplication).
    @inline(__always)
    package static func dividedByBillion(high: UInt64, low: UInt64) -> (quotient: UInt64, remainder: UInt64)? {
        guard high < 500_000_000 else { return nil }  // quotient < 2^63
        let (sum, carry) = low.addingReportingOverflow(high &* 709_551_616)
        var quotient = high &* 18_446_744_073
        var rest = sum
        if carry {
            quotient &+= 18_446_744_073
            rest = sum &+ 709_551_616  // sum < high · 709,551,616 here, so this cannot overflow
        }
        return (quotient &+ rest / 1_000_000_000, rest % 1_000_000_000)
    }

    /// The duration in whole microseconds (PostgreSQL's unit), rounded as `rule` says and saturated to `Int64`.
    ///
    /// - Parameter rule: Which way to round a remainder.
    /// - Returns: The microseconds, or `Int64.min` / `Int64.max` beyond that range (about 292,000 years either way).
    package func microseconds(rounded rule: NanosecondRounding) -> Int64 {
        Self.whole(attoseconds, per: 1_000_000_000_000, rounded: rule)
    }

    /// The duration in seconds as a `Double`, for display, statistics and APIs that take seconds (such as
    /// Foundation's `Thread.sleep(forTimeInterval:)`).
    ///
    /// Whole seconds and the fraction are converted apart, so a present-day duration keeps its precision to the
    /// `Double`'s; any duration converts (the largest to about ±1.7 · 10^20), none traps.
    package var inSeconds: Double {
        let (seconds, attoseconds) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// `components`, saturated where the whole seconds leave `Int64`: for a duration beyond `Int64.max` seconds it is
    /// `(Int64.max, 999_999_999_999_999_999)`, below `Int64.min` seconds `(Int64.min, -999_999_999_999_999_999)`,
    /// where `components` traps.
    ///
    /// As with `components`, both parts have the duration's sign and the attoseconds' magnitude is below 10^18.
    package var saturatingComponents: (seconds: Int64, attoseconds: Int64) {
        let (seconds, attoseconds) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
        if let whole = Int64(exactly: seconds) { return (whole, Int64(attoseconds)) }
        return seconds > 0 ? (.max, 999_999_999_999_999_999) : (.min, -999_999_999_999_999_999)
    }

    /// The duration in nanoseconds when it is a whole number of them within `Int64`, else `nil`.
    package var exactNanoseconds: Int64? {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        guard remainder == 0 else { return nil }
        return Int64(exactly: quotient)
    }

    /// `attoseconds` in whole `unit`s, rounded as `rule` says and saturated to `Int64`.
    private static func whole(_ attoseconds: Int128, per unit: Int128, rounded rule: NanosecondRounding) -> Int64 {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: unit)
        switch rule {
        case .down: return Int64(clamping: remainder < 0 ? quotient - 1 : quotient)
        case .up: return Int64(clamping: remainder > 0 ? quotient + 1 : quotient)
        }
    }

    /// Whether the duration is zero, in one integer comparison: `Duration`'s `==` and `zero` are calls into the
    /// standard library (neither is inlinable), and creating, arming and cancelling a timer checked against zero five
    /// times (issue #44).
    @inline(__always)
    package var isZero: Bool { attoseconds == 0 }

    /// `Duration.zero` built inline, for the same paths as ``isZero``.
    @inline(__always)
    package static var inlineZero: Duration { Duration(attoseconds: 0) }
}
