/// Parses human-written durations such as `250ms`, `1.5s`, `2m`, `1h30m`, `100us` and `10ns` exactly.
///
/// Units: `ns`, `us` (or `µs`), `ms`, `s`, `m`, `h`, `d`. Components add up (`1h30m`); each number may have
/// a decimal fraction, converted without floating point, so `0.5s` is exactly 500,000,000 ns. A bare
/// number is rejected: the unit is required.
///
/// Public because apps read intervals from configuration files, environment variables and command lines
/// (`POLL_INTERVAL=250ms`), and a parser that never truncates is hard to write; the `tempo` command uses it for
/// every duration option.
///
/// `DurationParser` is stateless; its methods are safe from any thread.
public enum DurationParser: Sendable {
    /// Parses `text` into an exact positive `Duration`.
    ///
    /// - Parameter text: The duration, for example `1h30m`.
    /// - Returns: The duration.
    /// - Throws: ``TempoError`` naming `text` when it is empty, malformed, zero, shorter than 1 ns, or longer than
    ///   292 years (`Int64.max` ns).
    public static func parse(_ text: String) throws(TempoError) -> Duration {
        func fail(_ why: String) -> TempoError {
            let shown = TempoError.capped(text)
            return TempoError(.invalidInterval, value: shown, message: "'\(shown)' is not a duration: \(why)")
        }
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { throw fail("it is empty") }
        var index = 0
        var totalAttoseconds: Int128 = 0
        let limit = Int128(Int64.max) * 1_000_000_000
        while index < scalars.count {
            var whole: Int128 = 0
            var fraction: Int128 = 0
            var fractionDigits = 0
            var sawDigit = false
            while index < scalars.count,
                let digit = scalars[index].properties.numericType != nil
                    ? Int(String(scalars[index])) : nil
            {
                whole = whole * 10 + Int128(digit)
                sawDigit = true
                index += 1
                if whole > limit { throw fail("it is too large") }
            }
            if index < scalars.count, scalars[index] == "." {
                index += 1
                while index < scalars.count, let digit = Int(String(scalars[index])) {
                    if fractionDigits < 18 {
                        fraction = fraction * 10 + Int128(digit)
                        fractionDigits += 1
                    }
                    sawDigit = true
                    index += 1
                }
            }
            guard sawDigit else { throw fail("expected a number at position \(index + 1)") }
            var unit = ""
            while index < scalars.count, scalars[index].properties.isAlphabetic || scalars[index] == "µ" {
                unit.unicodeScalars.append(scalars[index])
                index += 1
            }
            let attosecondsPerUnit: Int128
            switch unit {
            case "ns": attosecondsPerUnit = 1_000_000_000
            case "us", "µs": attosecondsPerUnit = 1_000_000_000_000
            case "ms": attosecondsPerUnit = 1_000_000_000_000_000
            case "s": attosecondsPerUnit = 1_000_000_000_000_000_000
            case "m": attosecondsPerUnit = 60_000_000_000_000_000_000
            case "h": attosecondsPerUnit = 3_600_000_000_000_000_000_000
            case "d": attosecondsPerUnit = 86_400_000_000_000_000_000_000
            case "": throw fail("missing unit (use ns, us, ms, s, m, h or d)")
            default: throw fail("unknown unit '\(unit)' (use ns, us, ms, s, m, h or d)")
            }
            // `whole` is bounded in attoseconds above, but not yet in this unit: check before multiplying.
            guard whole <= limit / attosecondsPerUnit else {
                throw fail("it is longer than \(TempoError.maximumDuration)")
            }
            var scale: Int128 = 1
            for _ in 0..<fractionDigits { scale *= 10 }
            // fraction < scale, so neither product can overflow; both round down exactly like fraction·unit/scale.
            let fractionAttoseconds =
                attosecondsPerUnit % scale == 0
                ? fraction * (attosecondsPerUnit / scale) : fraction * attosecondsPerUnit / scale
            totalAttoseconds += whole * attosecondsPerUnit + fractionAttoseconds
            if totalAttoseconds > limit { throw fail("it is longer than \(TempoError.maximumDuration)") }
        }
        guard totalAttoseconds > 0 else { throw fail("it must be positive") }
        // The same floor as `TempoError.validateInterval`: below 1 ns no deadline can be handed to the OS.
        guard totalAttoseconds >= 1_000_000_000 else { throw fail("it is shorter than 1 nanosecond") }
        return Duration(attoseconds: totalAttoseconds)
    }
}
