/// When a timer's first tick is due, relative to ``TempoTimer/start()``.
public enum FirstTick: Hashable, Sendable {
    /// One interval after start (the default).
    case afterInterval
    /// This long after start; zero fires at once. The one rule for delays, shared with
    /// ``TimerSchedule/after(_:leeway:delivery:clock:)`` and ``TempoTimer/reschedule(after:)``: from zero to
    /// ``TempoError/maximumDuration`` (otherwise creating the timer throws ``TempoError`` with
    /// ``TempoError/Code/invalidInterval``).
    case after(Duration)
    /// At this deadline, which must be on the timer's clock (otherwise creating the timer throws ``TempoError`` with
    /// ``TempoError/Code/clockMismatch``). A deadline already past when the timer starts is treated like any late
    /// tick: the grid stays anchored at the deadline and the ``LateTickPolicy`` decides what runs.
    case at(TimerDeadline)
}
