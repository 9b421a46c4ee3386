/// The error of TempoJobs and of its stores and coordinators (TempoPostgres included): bad input at registration,
/// misuse of a scheduler, a run that ran out of time, a job store whose contents or file cannot be used, and a
/// store or coordinator configuration that cannot run.
///
/// Every error names the job in ``job`` (when there is one) and the rejected value (a file, a setting) in
/// ``message``, so a message reads like `duplicateName: a job named "report" is already registered`. Registration
/// that throws changes nothing. New codes may be added in later versions, so switch over ``code`` with a `default`
/// branch.
///
/// It has the shape of Tempo's other errors (`TempoError`, `PlanError`): a ``code``, what it names (here the
/// ``job``) and a ``message``; two errors are equal when their code and job are (the message is not compared).
///
/// `JobError` is a value type and is `Sendable`.
public struct JobError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of input or event the error is about.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// A job name that is empty.
        public static let emptyName = Code("emptyName")
        /// A job name that is already registered (registration rejects it; nothing is replaced).
        public static let duplicateName = Code("duplicateName")
        /// A schedule that cannot run: a zero or negative interval, cron text that does not parse, an unknown
        /// time zone, a date outside the range plans can represent.
        public static let invalidSchedule = Code("invalidSchedule")
        /// A retry policy or backoff that cannot run: fewer than one attempt, a negative or zero delay, a cap
        /// below the initial delay, a multiplier below 1.
        public static let invalidRetryPolicy = Code("invalidRetryPolicy")
        /// Job options that cannot run: a timeout, spread or grace window that is zero or negative, a
        /// concurrency limit below one.
        public static let invalidOptions = Code("invalidOptions")
        /// A run that did not end within its timeout (it was cancelled, and the run counts as failed).
        public static let timedOut = Code("timedOut")
        /// `run()` was called on a scheduler that is already running or has run.
        public static let alreadyStarted = Code("alreadyStarted")
        /// A job was registered on a scheduler that is shutting down or has stopped.
        public static let schedulerStopped = Code("schedulerStopped")
        /// A job store's file (or a job's entry in it) is not valid: corrupt or truncated JSON, or a cursor of the
        /// wrong shape.
        public static let corrupt = Code("corrupt")
        /// A job store's file or a job's cursor was written by a newer version of TempoJobs.
        public static let newerVersion = Code("newerVersion")
        /// A job store's file exists but cannot be read, or its database did not answer a read (after the store's
        /// retries).
        public static let unreadable = Code("unreadable")
        /// A job store's file cannot be written (or its temporary file cannot be renamed over it), or its database
        /// did not take a write (after the store's retries).
        public static let unwritable = Code("unwritable")
        /// A store's or coordinator's configuration value is out of range (the message names it), for example a
        /// lease or a retry delay that is not more than zero.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The database's schema has a version that this version of the store does not know.
        public static let newerSchema = Code("newerSchema")
        /// A call of a store or coordinator to its database got no answer in time (the server is down or
        /// overloaded, or the pool has no connection); stores and coordinators retry it like any database error.
        /// Not a run's timeout: that is ``timedOut``.
        public static let storeTimedOut = Code("storeTimedOut")

        /// A ``JobCoordinator`` could not decide whether this process runs a date (its database did not answer
        /// after its retries); the scheduler leaves the date to the job's catch-up policy.
        public static let coordinatorUnavailable = Code("coordinatorUnavailable")
        /// A run's claim no longer holds (its lease ran out, another process took the date over, or it was
        /// released), so a write fenced by the claim was refused; retrying with the same claim cannot succeed, so
        /// a run that throws it is not retried, whatever the job's failure policy (``JobOptions/Failure``).
        public static let claimLost = Code("claimLost")
        /// An operator's write (pause, resume, run-now) named a job that no scheduler published to the store.
        public static let unknownJob = Code("unknownJob")

        /// The code's name, for example `duplicateName`.
        public var description: String { name }
    }

    /// What kind of input or event the error is about.
    public let code: Code
    /// The job's name, or `nil` when the error is not about one job.
    public let job: String?
    /// A sentence that says what was wrong and names the value.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of input or event the error is about.
    ///   - job: The job's name, if any.
    ///   - message: A sentence that names the value and says what was expected.
    public init(_ code: Code, job: String? = nil, message: String) {
        self.code = code
        self.job = job
        self.message = message
    }

    /// The code and the message, for example `timedOut: job "sync" ran longer than 30.0 seconds`.
    public var description: String { "\(code): \(message)" }
    /// Equal when the code and the job are; the message is prose that may be reworded and is not compared.
    public static func == (lhs: JobError, rhs: JobError) -> Bool {
        lhs.code == rhs.code && lhs.job == rhs.job
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(job)
    }
}

extension JobError {
    /// An error of a job store, naming the job and then the store's file or table, as every store's errors read:
    /// `corrupt: job "report": /var/lib/app/jobs.json: not valid JSON (corrupt or truncated, 12 bytes)`.
    package static func store(_ code: Code, job: String, at location: String, _ message: String) -> JobError {
        JobError(code, job: job, message: "job \"\(job)\": \(location): \(message)")
    }
}
