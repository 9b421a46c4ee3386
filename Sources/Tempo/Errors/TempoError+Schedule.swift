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
        if case .times(let n) = repeats.kind, n < 1 {
            throw TempoError(.invalidCount, value: "\(n)", message: "repeat count must be at least 1, got \(n)")
        }
        try validateLeeway(leeway)
    }
}

extension TempoError {
    /// Half of ``maximumDuration``, computed once: a `Duration` division is a 128-bit one, which was 7 % of the
    /// time of a thread that armed `.at` timers in a loop (a profile of `ExpiryProbe`).
    private static let deadlineLimit = maximumDuration / 2

    /// Checks that a deadline is within half of ``maximumDuration`` (about 146 years) of its clock's origin, so that
    /// the number of 1 ns slots from it to any instant a real clock reads fits in an `Int`.
    ///
    /// - Parameter instant: The deadline.
    /// - Throws: ``TempoError`` with ``Code/invalidInstant`` naming the instant.
    package static func validateDeadline(_ instant: TimerInstant) throws(TempoError) {
        if instant.offset > deadlineLimit || instant.offset < .zero - deadlineLimit {
            throw TempoError(
                .invalidInstant, value: "\(instant)",
                message: "deadline \(instant) is more than \(deadlineLimit) from the clock's origin")
        }
    }
}
