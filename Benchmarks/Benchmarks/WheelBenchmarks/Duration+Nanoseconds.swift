/// Whole nanoseconds of a duration, rounded toward zero: the form Dispatch and SwiftNIO take. (Tempo's own
/// conversion is package-only, so a benchmark package has its own.)
extension Duration {
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
