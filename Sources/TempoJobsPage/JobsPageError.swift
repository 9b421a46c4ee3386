#if Dashboard
/// The error ``JobsPage`` throws when it is created with a bad setting; its message names the value.
///
/// Compare errors by ``code`` only. Later versions may add codes.
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
    /// A sentence naming the bad value.
    public let message: String

    /// The message.
    public var description: String { message }

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Whether two errors have the same code (the message is not compared).
    ///
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether their codes are equal.
    public static func == (lhs: JobsPageError, rhs: JobsPageError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
#endif
