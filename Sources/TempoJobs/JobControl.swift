public import Foundation

/// A ``JobStore`` that operators can see into and steer: the jobs' schedules, next dates, state and history, and
/// pause, resume and run-now, for every scheduler (every replica) that shares the store.
///
/// Two sides share it:
/// - **Operators** (the `tempo jobs` command, a page, an app's own code) read ``jobOverviews()`` and
///   ``jobDetail(named:historyLimit:)`` and write ``pause(job:)``, ``resume(job:)`` and ``requestRun(of:)``.
/// - **Schedulers** publish each job they plan (``publish(_:)``), follow the operators' writes
///   (``controlUpdates()``) and record each finished run (``record(_:cursor:releasing:)``).
///
/// What the writes mean, on every scheduler that uses the store:
/// - **Paused**: no planned date of the job starts (catch-up, abandoned and outage dates included). Each date that
///   comes while the job is paused is skipped and counted in ``JobStats/skippedWhilePaused``; a run going when the
///   pause arrives goes on to its end. **Resume** continues from the next date after the resume, without catch-up
///   of the paused span (also after a restart: the span up to ``JobControl/changedAt`` is not a missed span).
/// - **Run now**: one extra run, claimed through the scheduler's ``JobCoordinator`` under the date
///   ``requestRun(of:)`` returns (so of several replicas, one runs it), recorded with the trigger
///   ``JobRunTrigger/runNow``. It runs while the job is paused too (an operator asked for it), does not move the
///   job's cursor, and meets the job's overlap policy like a date: while a run of the job is going it waits, and
///   starts at the next control update after that run ended.
///
/// How fast the writes are honoured is the store's: at once for ``InMemoryJobStore`` and for writes made through the
/// same ``JSONFileJobStore``; within its poll interval for another process's writes (TempoPostgres: within one lease
/// with the defaults).
///
/// Conforming types must be safe to call from several tasks at once.
public protocol JobControlStore: JobStore {
    /// Every job a scheduler published to the store, sorted by name.
    ///
    /// - Returns: The jobs' overviews.
    /// - Throws: ``JobError`` naming the store when it cannot be read (``JobError/Code/unreadable``,
    ///   ``JobError/Code/corrupt``, ``JobError/Code/newerVersion``, ``JobError/Code/newerSchema``).
    func jobOverviews() async throws -> [JobOverview]

    /// One job's overview, its last runs (newest first) and its current claims, or `nil` when no scheduler
    /// published a job of that name.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - historyLimit: The most runs to return (at least 0; the store keeps at most its own bound).
    /// - Returns: The job's detail.
    /// - Throws: As ``jobOverviews()``.
    func jobDetail(named job: String, historyLimit: Int) async throws -> JobDetail?

    /// Pauses a job on every scheduler of the store; pausing a paused job changes nothing.
    ///
    /// - Parameter job: The job's name.
    /// - Throws: ``JobError`` ``JobError/Code/unknownJob`` naming the job when no scheduler published it; the
    ///   store's errors (``JobError/Code/unwritable`` and the read errors) otherwise.
    func pause(job: String) async throws

    /// Resumes a paused job: its next date after now runs; the dates of the pause are not caught up. Resuming an
    /// active job changes nothing.
    ///
    /// - Parameter job: The job's name.
    /// - Throws: As ``pause(job:)``.
    func resume(job: String) async throws

    /// Asks for one extra run of a job, as soon as a scheduler sees the request (see ``JobControlStore``).
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The date the extra run is claimed and recorded under (the store's clock when asked; unique among
    ///   the job's requests).
    /// - Throws: As ``pause(job:)``.
    func requestRun(of job: String) async throws -> Date

    /// Scheduler side: publishes what a scheduler plans for a job (its schedule in words and next dates), replacing
    /// what was published before; a new job starts active. Called when a job's planning starts and again each time
    /// the dates published run out, off the runs' path.
    ///
    /// - Parameter description: The job's description.
    /// - Throws: The store's write errors; the scheduler logs them and goes on.
    func publish(_ description: JobDescription) async throws

    /// Scheduler side: the operators' writes, as a stream of the control of every job the store knows, keyed by job
    /// name: its first element as soon as the store is read, then one each time the control changes (at once for a
    /// write in this process; after the store's poll interval for another's). Each call returns a stream of its
    /// own, which stops polling when it is terminated. Read errors are the store's to log; the stream goes on.
    ///
    /// - Returns: The stream of controls.
    func controlUpdates() -> AsyncStream<[String: JobControl]>

    /// Scheduler side: ends a run: releases its claim, stores `cursor` (when not `nil`) as ``JobStore/save(_:for:)`` does,
    /// adds `run` to the job's history (dropping the oldest runs past the store's bound) and, for a run-now run,
    /// marks its request served, in one write where the store allows (TempoPostgres: one statement).
    ///
    /// - Parameters:
    ///   - run: The finished run.
    ///   - cursor: The job's cursor to store (at-least-once planned runs), or `nil`.
    ///   - claim: The run's claim, released exactly once.
    /// - Throws: The store's write errors (the claim is released in any case); the scheduler logs them and goes on.
    func record(_ run: JobRunRecord, cursor: JobCursor?, releasing claim: any JobClaim) async throws
}

/// Whether a job's planned dates run: active or paused.
///
/// `JobState` is a value type and is `Sendable`; it is encoded as its name (`"active"`, `"paused"`), and later
/// versions may add states: compare with `==` or switch with a `default` branch.
public struct JobState: Codable, Sendable, Hashable, CustomStringConvertible {
    let name: String

    /// The job's planned dates run.
    public static let active = JobState(name: "active")
    /// No planned date of the job starts on any scheduler of the store (run-now requests still run).
    public static let paused = JobState(name: "paused")

    /// The state's name, `active` or `paused`.
    public var description: String { name }

    /// Decodes a state from its name.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` naming an unknown state.
    public init(from decoder: any Decoder) throws {
        name = try decodeName(from: decoder, known: ["active", "paused"], of: "job state")
    }

    init(name: String) { self.name = name }

    /// Encodes the state's name.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// What started a run: a date of the job's schedule (catch-up included), or an operator's run-now request.
///
/// `JobRunTrigger` is a value type and is `Sendable`; it is encoded as its name (`"schedule"`, `"runNow"`), and
/// later versions may add triggers: compare with `==` or switch with a `default` branch.
public struct JobRunTrigger: Codable, Sendable, Hashable, CustomStringConvertible {
    let name: String

    /// A date of the schedule (or a missed date its catch-up policy ran).
    public static let schedule = JobRunTrigger(name: "schedule")
    /// An operator's request (``JobControlStore/requestRun(of:)``).
    public static let runNow = JobRunTrigger(name: "runNow")

    /// The trigger's name, `schedule` or `runNow`.
    public var description: String { name }

    /// Decodes a trigger from its name.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` naming an unknown trigger.
    public init(from decoder: any Decoder) throws {
        name = try decodeName(from: decoder, known: ["schedule", "runNow"], of: "run trigger")
    }

    init(name: String) { self.name = name }

    /// Encodes the trigger's name.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// How a run ended, after its last attempt.
///
/// `JobRunOutcome` is a value type and is `Sendable`; it is encoded as its name, and later versions may add
/// outcomes: compare with `==` or switch with a `default` branch.
public struct JobRunOutcome: Codable, Sendable, Hashable, CustomStringConvertible {
    let name: String

    /// An attempt returned without an error.
    public static let succeeded = JobRunOutcome(name: "succeeded")
    /// The last attempt threw.
    public static let failed = JobRunOutcome(name: "failed")
    /// The last attempt ran out of the job's timeout (``JobOptions/timeout``).
    public static let timedOut = JobRunOutcome(name: "timedOut")
    /// The run was cancelled (the scheduler's grace period at shutdown ended) and its last attempt threw.
    public static let cancelled = JobRunOutcome(name: "cancelled")

    /// The outcome's name: `succeeded`, `failed`, `timedOut` or `cancelled`.
    public var description: String { name }

    /// Decodes an outcome from its name.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError.dataCorrupted` naming an unknown outcome.
    public init(from decoder: any Decoder) throws {
        name = try decodeName(
            from: decoder, known: ["succeeded", "failed", "timedOut", "cancelled"], of: "run outcome")
    }

    init(name: String) { self.name = name }

    /// Encodes the outcome's name.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }
}

/// Decodes a name out of `known`, or throws naming it.
private func decodeName(from decoder: any Decoder, known: Set<String>, of what: String) throws -> String {
    let container = try decoder.singleValueContainer()
    let name = try container.decode(String.self)
    guard known.contains(name) else {
        throw DecodingError.dataCorruptedError(
            in: container, debugDescription: "unknown \(what) \"\(name)\" (known: \(known.sorted()))")
    }
    return name
}
