/// An error of a ``JobStore``, naming the store's file (or table) and the job.
///
/// `JobStoreError` is a value type and is `Sendable`.
public struct JobStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// The file (or the job's entry) is not valid: corrupt or truncated JSON, or a cursor of the wrong shape.
        public static let corrupt = Code("corrupt")
        /// The file or the job's cursor was written by a newer version of TempoJobs.
        public static let newerVersion = Code("newerVersion")
        /// The file exists but cannot be read.
        public static let unreadable = Code("unreadable")
        /// The file cannot be written (or its temporary file cannot be renamed over it).
        public static let unwritable = Code("unwritable")

        /// The code's name, for example `corrupt`.
        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// The store's file (or table).
    public let file: String
    /// The job whose cursor was being read or written.
    public let job: String
    /// A sentence naming the file, the job and the fault.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - file: The store's file or table.
    ///   - job: The job.
    ///   - message: A sentence naming the fault.
    public init(_ code: Code, file: String, job: String, message: String) {
        self.code = code
        self.file = file
        self.job = job
        self.message = message
    }

    /// For example `corrupt: job "report": /var/lib/app/jobs.json is not valid JSON (truncated?)`.
    public var description: String { "\(code): job \"\(job)\": \(message)" }
}
