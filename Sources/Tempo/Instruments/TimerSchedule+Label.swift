extension TimerSchedule {
    /// The same schedule with a ``TimerLabel``: the name that ``TimerInstruments`` events, stall reports and
    /// TempoTesting's armed-timer check give the timer, with the site where it was given.
    ///
    /// ```swift
    /// let poll = try TempoTimer(.every(.seconds(5)).labeled("poll")) { _ in }.start()
    /// ```
    ///
    /// The label changes no timing. Keep names few and fixed (see ``TimerLabel``); an empty name labels the timer
    /// by its site alone.
    ///
    /// - Parameters:
    ///   - name: The timer's name.
    ///   - fileID: Where the label is given; leave the default.
    ///   - line: The line the label is given on; leave the default.
    /// - Returns: The schedule, labeled.
    public func labeled(_ name: String, fileID: String = #fileID, line: Int = #line) -> TimerSchedule {
        var schedule = self
        schedule.label = TimerLabel(name, fileID: fileID, line: line)
        return schedule
    }
}
