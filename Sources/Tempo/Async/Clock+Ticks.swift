extension Clock where Duration == Swift.Duration {
    /// A sequence of ticks on this clock; see ``AsyncTickSequence``.
    ///
    /// ```swift
    /// for await tick in try ContinuousClock().ticks(every: .seconds(1), repeats: .times(3)) { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - interval: The period between ticks, and the delay before the first one.
    ///   - repeats: How many ticks (default forever).
    ///   - leeway: The tolerance for each sleep (default zero).
    ///   - latePolicy: What happens to missed ticks (default ``LateTickPolicy/coalesce``).
    /// - Returns: The sequence.
    /// - Throws: ``TempoError`` for an invalid interval, count or leeway.
    public func ticks(
        every interval: Duration,
        repeats: TimerRepeats = .forever,
        leeway: Duration = .zero,
        latePolicy: LateTickPolicy = .coalesce
    ) throws(TempoError) -> AsyncTickSequence<Self> {
        try AsyncTickSequence(every: interval, repeats: repeats, leeway: leeway, latePolicy: latePolicy, clock: self)
    }
}
