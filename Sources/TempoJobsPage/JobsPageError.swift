#if Dashboard
/// The error ``JobsPage`` throws when it is created with a bad setting; its message names the value.
///
/// It has the shape of Tempo's other errors (`TempoError`, `PlanError`, `JobError`): a ``code``, the rejected
/// ``value`` and a ``message``; its description is `code: message`, and two errors are equal when their code and
/// value are. Later versions may add codes.
///
/// `JobsPageError` is a value type and is `Sendable`.
public struct JobsPageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of a ``JobsPageError``.
    ///
    /// Later versions may add codes: switch with a `default` branch.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        /// ``JobsPage/Configuration/refreshEvery`` is not a whole number of seconds from 1 to 3,600.
        public static let invalidRefreshInterval = Code(name: "invalidRefreshInterval")
        /// ``JobsPage/Configuration/historyLimit`` is not from 1 to 1,000.
        public static let invalidHistoryLimit = Code(name: "invalidHistoryLimit")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// The rejected value, rendered as text (for example `1.5 seconds` or `0`).
    public let value: String
    /// A sentence naming the bad value.
    public let message: String

    /// The code and the message: `invalidHistoryLimit: the page's history limit 0 is not from 1 to 1000`.
    public var description: String { "\(code): \(message)" }

    init(_ code: Code, value: String, _ message: String) {
        self.code = code
        self.value = value
        self.message = message
    }

    /// Whether two errors have the same code and value (the message is not compared).
    ///
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether their codes and values are equal.
    public static func == (lhs: JobsPageError, rhs: JobsPageError) -> Bool {
        lhs.code == rhs.code && lhs.value == rhs.value
    }

    /// Hashes the code and the value.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(value)
    }
}
#endif
