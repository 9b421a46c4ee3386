extension TimerLabel {
    /// The label of what is being armed, bound around a ``TimerScheduler/schedule(at:leeway:clock:_:)`` call on a
    /// scheduler other than ``SystemScheduler`` (a labeled ``TempoTimer`` arming, a job waiting for its date), so that
    /// a scheduler that reports what is pending (TempoTesting's armed-timer check) can name it; `nil` otherwise.
    ///
    /// A task-local value: read it inside `schedule`, on the caller's thread; it is not bound while actions run.
    @TaskLocal package static var arming: TimerLabel?
}
