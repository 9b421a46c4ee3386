import Tempo

extension Plan {
    /// The same plan with a `TimerLabel`: the name that a ``PlanTimer`` (also through ``PlanRegistry``) of this plan
    /// gives its timer, in `TimerInstruments` events, stall reports and TempoTesting's armed-timer check, with the site
    /// where it was given. The same spelling as `TimerSchedule.labeled(_:fileID:line:)`.
    ///
    /// ```swift
    /// let reports = try Plan.cron("0 9 * * MON-FRI").labeled("reports")
    /// let timer = try PlanTimer(reports, handler: .fire { _ in })
    /// ```
    ///
    /// The label changes no date. It belongs to this plan value: a plan composed from it (``union(_:)-method``,
    /// ``until(_:)``, ...) has none, so label the plan you run, last. Keep names few and fixed (a kind of plan, not a
    /// user id): metrics backends use the name as a dimension. An empty name labels the plan by its site alone.
    ///
    /// - Parameters:
    ///   - name: The plan's name.
    ///   - fileID: Where the label is given; leave the default.
    ///   - line: The line the label is given on; leave the default.
    /// - Returns: The plan, labeled.
    public func labeled(_ name: String, fileID: String = #fileID, line: Int = #line) -> Plan {
        var plan = self
        plan.label = TimerLabel(name, fileID: fileID, line: line)
        return plan
    }
}
