public import Tempo

/// How ``TimerMetrics`` names a timer in its `timer` dimension.
public enum TimerMetricsNames {
    /// The `timer` dimension of a label: its name, its site (`App/Poller.swift:12`) when the name is empty, and
    /// `unlabeled` for a timer without a label, so that every unlabeled timer shares one series.
    ///
    /// - Parameter label: The timer's label.
    /// - Returns: The dimension's value.
    public static func timer(_ label: TimerLabel?) -> String {
        guard let label else { return "unlabeled" }
        return label.name.isEmpty ? label.site : label.name
    }
}
