extension Duration {
    /// How ``nanoseconds(rounded:)`` rounds a duration that is not a whole number of nanoseconds.
    package enum NanosecondRounding: Sendable {
        /// Toward negative infinity: a clock reading never counts as later than it is.
        case down
        /// Toward positive infinity: a deadline is never brought forward.
        case up
    }

    /// The duration in whole nanoseconds, rounded as `rule` says and saturated to `Int64`: the package's one
    /// conversion from attoseconds to nanoseconds (instants, plans, the wheel's tick, the measuring tools).
    ///
    /// The timing wheel keeps a division of its own on its arm path (`TimingWheel.dividedByBillion`, no 128-bit
    /// division), which rounds up as `.up` does and reports an out-of-range deadline instead of saturating.
    ///
    /// - Parameter rule: Which way to round a remainder.
    /// - Returns: The nanoseconds, or `Int64.min` / `Int64.max` beyond that range.
    package func nanoseconds(rounded rule: NanosecondRounding) -> Int64 {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        switch rule {
        case .down: return Int64(clamping: remainder < 0 ? quotient - 1 : quotient)
        case .up: return Int64(clamping: remainder > 0 ? quotient + 1 : quotient)
        }
    }

    /// The duration in nanoseconds when it is a whole number of them within `Int64`, else `nil`.
    package var exactNanoseconds: Int64? {
        let (quotient, remainder) = attoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        guard remainder == 0 else { return nil }
        return Int64(exactly: quotient)
    }
}
