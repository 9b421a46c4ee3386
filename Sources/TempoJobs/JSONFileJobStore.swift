import Dispatch
import Foundation
import Tempo
import TempoLocks

/// A ``JobStore`` in one JSON file, written atomically and in groups, off the caller's thread.
///
/// The file holds `{"version": 1, "cursors": {"<job>": {"lastDate": …, "version": 1}}}`. Each job's cursor is
/// decoded on its own, so one bad entry fails only that job. A file that is corrupt, truncated or from a newer
/// version makes reads and writes throw ``JobError`` naming the file and the job, and is never overwritten:
/// the other jobs' cursors in it are neither lost nor replaced. A job's entry written by a newer version (its
/// `"version"` above ``JobCursor/currentVersion``) is never overwritten either: a save for that job throws
/// ``JobError/Code/newerVersion``, and the other jobs' saves keep the entry as it was. A missing file reads as no
/// cursors; the first save creates it (not its folder).
///
/// How it writes: the store reads the file once (on its first read or save) and keeps its entries, every entry it
/// does not change kept as the JSON value it read (the same value; spacing and number formatting may differ). All
/// file work (reading, JSON encoding, writing, `fsync`) happens on a thread of the store's own, never on
/// the caller's thread: ``save(_:for:)`` and ``cursor(for:)`` suspend until their turn comes. Saves are grouped
/// (group commit): the saves that arrive while a write is in flight go into the next write together, so a
/// thousand saves a second cost tens of file writes, not a thousand; and a write starts no sooner than the last
/// one's size at 25 MB a second after it (about 20 ms for a file of 10,000 jobs; at once after a quiet spell), so a
/// large file does not keep the disk busy. Each write is atomic, as before: the whole file goes to a temporary file
/// in the same folder, which is flushed (`fsync`) and renamed over the file; then the folder is flushed too, so that
/// the rename survives a power loss. ``save(_:for:)`` returns only when the write that holds its cursor is durable.
///
/// What a crash loses: nothing a returned ``save(_:for:)`` wrote. With ``JobOptions/Guarantee/atMostOnce`` the
/// scheduler waits for that save before the body starts, so a crash never runs a date twice (a crash between the
/// durable write and the body's end loses that date). With ``JobOptions/Guarantee/atLeastOnce`` the cursor is
/// saved after the run, so a crash during the run, or after it but before its grouped write is durable, leaves
/// the date to the job's catch-up policy on restart (``JobOptions/CatchUp``).
///
/// Thread-safety: every method may be called from any task at once; the store's drain thread (one at a time) serializes the file work.
/// Two stores (or processes) on one file are not coordinated: each reads the file once and writes its own view,
/// so one store overwrites what another wrote after its first read (a store that notices the file changed since it
/// last read or wrote it reads it again before its next write).
///
/// In tests on TempoTesting's `VirtualClock`, the clock does not see the store's thread (real I/O): wrap the store's
/// calls in `holdingTime` so that time does not move while a cursor is read or written.
public final class JSONFileJobStore: JobStore {
    /// The file's format version this version writes and reads.
    public static var formatVersion: Int { 1 }

    /// The file's path.
    public let path: String
    /// Where the file's entries live and the file is read and written: only ever on the drain's thread.
    private let file: JSONCursorFile
    /// The jobs file and the control file of ``JobControlStore`` beside it.
    let side: JSONSideFiles
    /// Requests waiting for the drain, and whether a drain of them is scheduled.
    private let requests = TempoMutex(JSONFileRequests())

    /// Creates a store on the file at `path`; nothing is read until a job asks.
    ///
    /// - Parameter path: The file's path.
    public convenience init(path: String) {
        self.init(path: path, beforeWrite: nil)
    }

    /// Creates a store on the file at `path` that calls `beforeWrite` on its thread before each file write: a
    /// test's stand-in for a slow file system.
    ///
    /// - Parameters:
    ///   - path: The file's path.
    ///   - beforeWrite: Called on the store's thread before each write of the file (it may block).
    package init(path: String, beforeWrite: (@Sendable () -> Void)?) {
        self.path = path
        self.file = JSONCursorFile(path: path, beforeWrite: beforeWrite)
        self.side = JSONSideFiles(path: path)
    }

    /// The cursor stored for `job`, or `nil` when the file or the entry does not exist.
    ///
    /// Suspends until the store's thread has read the file (the first call only) and looked the entry up; never
    /// blocks the caller's thread. Cancelling the task does not end the wait.
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The cursor.
    /// - Throws: ``JobError`` naming the file and the job: ``JobError/Code/unreadable`` when the file cannot be
    ///   read, ``JobError/Code/corrupt`` when it is corrupt or truncated, ``JobError/Code/newerVersion`` when the
    ///   file or the entry is of a newer version.
    public func cursor(for job: String) async throws -> JobCursor? {
        try await withCheckedThrowingContinuation { continuation in
            submit(.read(job: job, continuation))
        }
    }

    /// Stores `cursor` for `job`, keeping every other entry of the file as it was; returns when the file that holds
    /// it is durable (flushed and renamed, and its folder flushed).
    ///
    /// Suspends, never blocking the caller's thread: the save joins the next grouped write of the store's thread.
    /// Cancelling the task does not end the wait (the cursor is written or the save throws).
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    /// - Throws: ``JobError`` naming the file and the job: as ``cursor(for:)`` when the file exists but cannot be
    ///   read or is not valid (it is then left untouched), ``JobError/Code/newerVersion`` when the job's entry was
    ///   written by a newer version (it is kept), ``JobError/Code/unwritable`` when the file cannot be written.
    public func save(_ cursor: JobCursor, for job: String) async throws {
        try await withCheckedThrowingContinuation { continuation in
            submit(.save(job: job, cursor: cursor, continuation))
        }
    }

    /// How many times the store has written the file (for tests and benchmarks: grouped saves write once).
    package var writeCount: Int {
        file.writes.withLock { $0 }
    }

    /// How many reads and saves wait for the store's thread, not counting the group being written.
    package var pendingCount: Int {
        requests.withLock { $0.pending.count }
    }

    /// Queues `request`, and starts a drain on a thread of its own unless one is running.
    private func submit(_ request: JSONFileRequest) {
        let schedule = requests.withLock { state -> Bool in
            state.pending.append(request)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if schedule {
            // A thread of the store's own for each drain (it ends when nothing waits), not a dispatch queue: on
            // Linux a queue's work can take a thread that Swift's cooperative pool needs, and a stalled file
            // system (or `fsync`) would then stall every task of the process.
            let thread = Thread { self.drain() }
            thread.name = "TempoJobs.JSONFileJobStore"
            thread.start()
        }
    }

    /// On the drain's thread: takes every waiting request as one group and serves it, until none waits. Before it takes a
    /// group it waits (on the drain's thread) until the last write is far enough behind (`pauseBeforeNextGroup`).
    private func drain() {
        while true {
            let waiting = requests.withLock { state -> Bool in
                if state.pending.isEmpty { state.draining = false }
                return state.draining
            }
            guard waiting else { return }
            let pause = file.pauseBeforeNextGroup()
            if pause > .zero {
                Thread.sleep(forTimeInterval: pause.inSeconds)
            }
            let group = requests.withLock { state -> [JSONFileRequest] in
                let group = state.pending
                state.pending = []
                return group
            }
            file.serve(group)
        }
    }
}

/// A read or a save waiting for the store's drain.
enum JSONFileRequest: Sendable {
    case read(job: String, CheckedContinuation<JobCursor?, any Error>)
    case save(job: String, cursor: JobCursor, CheckedContinuation<Void, any Error>)
}

/// The requests of a store waiting for its drain.
struct JSONFileRequests {
    var pending: [JSONFileRequest] = []
    /// Whether a drain is scheduled or running on the queue (it takes what is pending before it returns).
    var draining = false
}
