#if Postgres
/// An error of TempoPostgres that is not a database error: a bad configuration value, a schema written by a
/// newer version, or a database call with no answer in time.
///
/// `PostgresJobsError` is a value type and is `Sendable`.
public struct PostgresJobsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// A configuration value is out of range (the message names it).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The database's schema has a version this version of TempoPostgres does not know.
        public static let newerSchema = Code("newerSchema")
        /// A database call got no answer within ``PostgresRetry/attemptTimeout`` (the server is down or
        /// overloaded, or the pool has no connection); retried like any database error.
        public static let timedOut = Code("timedOut")

        /// The code's name, for example `newerSchema`.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence naming the bad value.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A sentence naming the bad value.
    public init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// For example `invalidConfiguration: the lease must be more than zero, not 0.0 seconds`.
    public var description: String { "\(code): \(message)" }
}
#endif
