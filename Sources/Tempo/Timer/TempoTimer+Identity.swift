extension TempoTimer: Hashable {
    /// Whether two timers are the same object (identity, like `===`): two timers with equal configurations
    /// are different timers.
    ///
    /// - Parameters:
    ///   - lhs: A timer.
    ///   - rhs: Another timer.
    /// - Returns: `lhs === rhs`.
    public static func == (lhs: TempoTimer, rhs: TempoTimer) -> Bool {
        lhs === rhs
    }

    /// Hashes the timer's identity (`ObjectIdentifier`), so timers can be kept in a `Set` or used as keys.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
