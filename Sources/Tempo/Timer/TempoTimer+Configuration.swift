extension TempoTimer {
    /// A timer's timing, validated by the timer's initializer: what a ``TimerSchedule`` becomes inside the package (a
    /// one-shot as one slot of a grid whose interval is never read back; ``TempoTimer/schedule`` reports the one-shot).
    ///
    /// Plain values only: the delivery and the label, which hold references, are passed to the timer's initializer
    /// beside it. A value with references is copied and destroyed through outlined value-witness calls at every step
    /// from the schedule to the state machine (retains and releases included); this one is copied as bytes, and
    /// creating a timer is that much cheaper (issue #44).
    struct Configuration: Sendable {
        /// The period between ticks (for a one-shot, the delay before its tick).
        var interval: Duration
        /// How many ticks to deliver.
        var repeats: TimerRepeats = .forever
        /// When the first tick is due.
        var firstTick: FirstTick = .afterInterval
        /// How late past its due instant a tick may run so that wakeups can be batched; zero by default.
        var leeway: Duration = .zero
        /// What happens to ticks missed while the timer could not run.
        var latePolicy: LateTickPolicy = .coalesce
        /// The clock deadlines are measured on.
        var clock: TimerClock = .monotonic

        // The memberwise initializer: `init(interval:repeats:firstTick:leeway:latePolicy:clock:)`.

        /// Checks every field.
        ///
        /// - Throws: ``TempoError`` naming the first bad value: an interval that is not positive, below
        ///   1 ns or above 292 years (`Int64.max` ns); a count below 1; a negative or oversized leeway; a
        ///   negative or oversized first delay; a first-tick instant more than half of
        ///   292 years (`Int64.max` ns) (about 146 years) from the clock's origin
        ///   (``TempoError/Code/invalidInstant``), so that the number of 1 ns slots from it to any instant a real
        ///   clock reads fits in an `Int`.
        func validate() throws(TempoError) {
            try TempoError.validateSchedule(interval: interval, repeats: repeats, leeway: leeway)
            if case .after(let delay) = firstTick.kind {
                try TempoError.validateDelay(delay, name: "first-tick delay")
            }
            // Only an absolute first tick has an instant to check: the common path does no division.
            if case .at(let deadline) = firstTick.kind {
                try TempoError.validateDeadline(try deadline.instant(on: clock))
            }
        }
    }
}
