extension TempoError {
    /// Checks the parts of a repeating schedule that every ticking type shares (``TempoTimer``,
    /// ``AsyncTickSequence``, ``Countdown``): the one place their rules and messages are written.
    ///
    /// - Parameters:
    ///   - interval: The period; must be positive, at least 1 ns and at most ``maximumDuration``.
    ///   - repeats: The number of ticks; a count must be at least 1.
    ///   - leeway: The tolerance; must be between zero and ``maximumDuration``.
    /// - Throws: ``TempoError`` naming the first bad value.
    package static func validateSchedule(
        interval: Duration,
        repeats: TimerRepeats = .forever,
        leeway: Duration
    ) throws(TempoError) {
        try validateInterval(interval)
        if case .times(let n) = repeats, n < 1 {
            throw TempoError(.invalidCount, value: "\(n)", message: "repeat count must be at least 1, got \(n)")
        }
        try validateLeeway(leeway)
    }
}
