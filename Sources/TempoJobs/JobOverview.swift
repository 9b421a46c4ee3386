public import Foundation

/// What a scheduler publishes about a job it plans (``JobControlStore/publish(_:)``): its schedule in words and its
/// next dates, from which replica and when.
///
/// `JobDescription` is a value type, `Codable` and `Sendable`.
public struct JobDescription: Codable, Sendable, Hashable {
    /// The job's name.
    public var name: String
    /// The schedule in words (``JobSchedule/description``), for example `every 300.0 seconds` or
    /// `cron "0 3 * * *" in Europe/Paris`.
    public var schedule: String
    /// The job's next planned dates as the publishing scheduler computed them (spread included), oldest first; at
    /// most ``JobDescription/publishedDates``.
    public var nextDates: [Date]
    /// The replica that published it (``JobCoordinator/replica``).
    public var replica: String
    /// When it was published, on the publishing scheduler's wall clock.
    public var publishedAt: Date

    /// How many next dates a scheduler publishes at a time; it publishes again once all but a quarter of them have
    /// passed, so a job costs its store one publish per 15 dates.
    public static let publishedDates = 20

    /// Creates a description.
    ///
    /// - Parameters:
    ///   - name: The job's name.
    ///   - schedule: The schedule in words.
    ///   - nextDates: The next planned dates, oldest first.
    ///   - replica: The publishing replica.
    ///   - publishedAt: When it was published.
    public init(name: String, schedule: String, nextDates: [Date], replica: String, publishedAt: Date) {
        self.name = name
        self.schedule = schedule
        self.nextDates = nextDates
        self.replica = replica
        self.publishedAt = publishedAt
    }
}

/// The operators' control of one job, as schedulers read it (``JobControlStore/controlUpdates()``).
///
/// `JobControl` is a value type, `Codable` and `Sendable`.
public struct JobControl: Codable, Sendable, Hashable {
    /// Whether the job's planned dates run.
    public var state: JobState
    /// When the state last changed (a pause or a resume), on the store's clock; `nil` if it never did. A scheduler
    /// that starts with an active job does not catch up dates before it (they were the pause's).
    public var changedAt: Date?
    /// The dates of the run-now requests not served yet, oldest first.
    public var runRequests: [Date]

    /// Creates a control.
    ///
    /// - Parameters:
    ///   - state: Active or paused (default active).
    ///   - changedAt: When the state last changed (default never).
    ///   - runRequests: Pending run-now dates, oldest first (default none).
    public init(state: JobState = .active, changedAt: Date? = nil, runRequests: [Date] = []) {
        self.state = state
        self.changedAt = changedAt
        self.runRequests = runRequests
    }
}

/// One job as an operator sees it: its schedule in words, next dates, state, pending run-now requests, last run,
/// and which replica published it when.
///
/// `JobOverview` is a value type, `Codable` and `Sendable`.
public struct JobOverview: Codable, Sendable, Hashable {
    /// The job's name.
    public var name: String
    /// The schedule in words (``JobSchedule/description``).
    public var schedule: String
    /// The job's next planned dates after the time of the read, oldest first (at most 5; empty when the dates the
    /// scheduler published have all passed, for example while no scheduler runs).
    public var nextDates: [Date]
    /// Active or paused.
    public var state: JobState
    /// When the state last changed, if it ever did.
    public var stateChangedAt: Date?
    /// Run-now requests not served yet.
    public var pendingRuns: Int
    /// The job's latest finished run, if any.
    public var lastRun: JobRunRecord?
    /// The replica that last published the job.
    public var publishedBy: String
    /// When it last published the job, on its wall clock.
    public var publishedAt: Date

    /// Creates an overview.
    ///
    /// - Parameters:
    ///   - name: The job's name.
    ///   - schedule: The schedule in words.
    ///   - nextDates: The next planned dates.
    ///   - state: Active or paused.
    ///   - stateChangedAt: When the state last changed.
    ///   - pendingRuns: Run-now requests not served yet.
    ///   - lastRun: The latest finished run.
    ///   - publishedBy: The publishing replica.
    ///   - publishedAt: When it published.
    public init(
        name: String, schedule: String, nextDates: [Date], state: JobState, stateChangedAt: Date?, pendingRuns: Int,
        lastRun: JobRunRecord?, publishedBy: String, publishedAt: Date
    ) {
        self.name = name
        self.schedule = schedule
        self.nextDates = nextDates
        self.state = state
        self.stateChangedAt = stateChangedAt
        self.pendingRuns = pendingRuns
        self.lastRun = lastRun
        self.publishedBy = publishedBy
        self.publishedAt = publishedAt
    }

    /// How many next dates an overview lists.
    public static let listedDates = 5
}

/// One job in detail: its overview, its last runs newest first, and the claims held now.
///
/// `JobDetail` is a value type, `Codable` and `Sendable`.
public struct JobDetail: Codable, Sendable, Hashable {
    /// A claim held now on one of the job's dates (TempoPostgres; empty for one process's stores).
    public struct Claim: Codable, Sendable, Hashable {
        /// The date claimed.
        public var plannedDate: Date
        /// The replica that holds it.
        public var replica: String
        /// Its fencing token.
        public var fencingToken: Int64
        /// When its lease runs out unless renewed, on the database server's clock.
        public var leaseUntil: Date

        /// Creates a claim's description.
        ///
        /// - Parameters:
        ///   - plannedDate: The date claimed.
        ///   - replica: The replica that holds it.
        ///   - fencingToken: Its fencing token.
        ///   - leaseUntil: When its lease runs out.
        public init(plannedDate: Date, replica: String, fencingToken: Int64, leaseUntil: Date) {
            self.plannedDate = plannedDate
            self.replica = replica
            self.fencingToken = fencingToken
            self.leaseUntil = leaseUntil
        }
    }

    /// The job's overview.
    public var overview: JobOverview
    /// Its last runs, newest (latest end) first.
    public var history: [JobRunRecord]
    /// The unfinished claims of its dates, oldest first.
    public var claims: [Claim]

    /// Creates a detail.
    ///
    /// - Parameters:
    ///   - overview: The overview.
    ///   - history: The last runs, newest first.
    ///   - claims: The claims held now.
    public init(overview: JobOverview, history: [JobRunRecord], claims: [Claim]) {
        self.overview = overview
        self.history = history
        self.claims = claims
    }
}
