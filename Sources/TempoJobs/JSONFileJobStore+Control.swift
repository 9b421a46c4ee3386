public import Foundation
import TempoLocks

#if canImport(Glibc)
import Glibc
#endif

extension JSONFileJobStore: JobControlStore {
    /// The file of what the store's schedulers write for operators (published jobs, history, served run-now
    /// requests): the store's path plus `.jobs.json`.
    public var jobsPath: String { path + ".jobs.json" }
    /// The file only operators write (pause, resume, run-now), which the schedulers read: the store's path plus
    /// `.control.json`.
    public var controlPath: String { path + ".control.json" }

    /// Every published job, sorted by name, read from ``jobsPath`` and ``controlPath`` (or, in the process whose
    /// scheduler writes them, from memory).
    ///
    /// - Returns: The overviews.
    /// - Throws: ``JobError`` naming the file: ``JobError/Code/unreadable``, ``JobError/Code/corrupt`` or
    ///   ``JobError/Code/newerVersion``.
    public func jobOverviews() async throws -> [JobOverview] {
        try currentBook().overviews(now: Date())
    }

    /// One job's detail (its claims are always empty: one process), or `nil`.
    ///
    /// - Parameters:
    ///   - job: The job's name.
    ///   - historyLimit: The most runs to return.
    /// - Returns: The detail.
    /// - Throws: As ``jobOverviews()``.
    public func jobDetail(named job: String, historyLimit: Int) async throws -> JobDetail? {
        try currentBook().detail(of: job, historyLimit: historyLimit, now: Date())
    }

    /// Pauses `job`: rewrites ``controlPath`` (under a lock file, atomically); the scheduler of this store object
    /// honours it at once, a scheduler of another process within its poll interval (1 s).
    ///
    /// - Parameter job: The job's name.
    /// - Throws: ``JobError/Code/unknownJob`` when no scheduler published it; the files' errors otherwise.
    public func pause(job: String) async throws {
        try changeControl { book throws(JobError) in try book.set(.paused, of: job, at: Date(), store: jobsPath) }
    }

    /// Resumes `job` (see ``pause(job:)``).
    ///
    /// - Parameter job: The job's name.
    /// - Throws: As ``pause(job:)``.
    public func resume(job: String) async throws {
        try changeControl { book throws(JobError) in try book.set(.active, of: job, at: Date(), store: jobsPath) }
    }

    /// Asks for one extra run of `job` (see ``pause(job:)``).
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The request's date.
    /// - Throws: As ``pause(job:)``.
    public func requestRun(of job: String) async throws -> Date {
        try changeControl { book throws(JobError) in try book.requestRun(of: job, at: Date(), store: jobsPath) }
    }

    /// Keeps what a scheduler publishes about a job, written to ``jobsPath`` off the caller's thread.
    ///
    /// - Parameter description: The job's description.
    /// - Throws: The jobs file's read errors (it is read once).
    public func publish(_ description: JobDescription) async throws {
        try side.change { $0.descriptions[description.name] = description }
    }

    /// The control of every job: now, at once after a write through this store object, and within a second after
    /// another process changed ``controlPath`` (its modification time is checked every second).
    ///
    /// - Returns: A stream of its own.
    public func controlUpdates() -> AsyncStream<[String: JobControl]> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: [String: JobControl].self, bufferingPolicy: .bufferingNewest(1))
        let id = side.watch(continuation)
        let poll = Task { [side] in
            while !Task.isCancelled {
                side.reloadControlIfChanged()
                do {
                    try await Task.sleep(for: .seconds(1))
                } catch {
                    break
                }
            }
        }
        continuation.onTermination = { [side] _ in
            poll.cancel()
            side.unwatch(id)
        }
        side.reloadControlIfChanged(force: true)
        return stream
    }

    /// Releases the claim, saves the cursor (if any) as ``save(_:for:)`` does, and adds the run to the job's
    /// history in ``jobsPath`` (the last 100 runs per job), written off the caller's thread.
    ///
    /// - Parameters:
    ///   - run: The finished run.
    ///   - cursor: The cursor to save, or `nil`.
    ///   - claim: The run's claim.
    /// - Throws: What ``save(_:for:)`` throws.
    public func record(_ run: JobRunRecord, cursor: JobCursor?, releasing claim: any JobClaim) async throws {
        await claim.release(succeeded: run.outcome == .succeeded)
        try side.change { $0.record(run, limit: 100) }
        if let cursor { try await save(cursor, for: run.job) }
    }

    /// The book as operators read it: this process's when its scheduler wrote one, else the files'.
    private func currentBook() throws(JobError) -> JobControlBook {
        if let book = side.bookIfWritten() { return book }
        var book = try JSONSideFiles.read(JobControlBook.self, at: jobsPath) ?? JobControlBook()
        book.controls = try JSONSideFiles.read([String: JobControl].self, at: controlPath) ?? [:]
        return book
    }

    /// Changes the control file under its lock: reads it and the jobs file, applies `body`, writes it atomically.
    private func changeControl<T>(_ body: (inout JobControlBook) throws(JobError) -> T) throws(JobError) -> T {
        try JSONSideFiles.withLock(path + ".control.lock") { () throws(JobError) -> T in
            var book: JobControlBook
            if let written = side.bookIfWritten() {
                book = written
            } else {
                book = try JSONSideFiles.read(JobControlBook.self, at: jobsPath) ?? JobControlBook()
            }
            book.controls = try JSONSideFiles.read([String: JobControl].self, at: controlPath) ?? [:]
            let value = try body(&book)
            // Requests already served are dropped from the file.
            var controls = book.controls
            for (job, control) in controls {
                controls[job] = JobControl(
                    state: control.state, changedAt: control.changedAt,
                    runRequests: control.runRequests.filter { $0 > (book.served[job] ?? .distantPast) })
            }
            try JSONSideFiles.write(controls, to: controlPath)
            side.controlChanged(controls)
            return value
        }
    }
}

/// The side files of a ``JSONFileJobStore``: its jobs file (written by its scheduler, off the caller's thread) and
/// its control file (read, and written by operators).
final class JSONSideFiles: Sendable {
    private struct State {
        var book: JobControlBook?
        var written = false
        var dirty = false
        var writing = false
        var controlModified: timespec?
        var watchers: [UInt64: AsyncStream<[String: JobControl]>.Continuation] = [:]
        var nextWatcher: UInt64 = 0
    }

    let jobsPath: String
    let controlPath: String
    private let state = TempoMutex(State())

    init(path: String) {
        jobsPath = path + ".jobs.json"
        controlPath = path + ".control.json"
    }

    /// This process's book once its scheduler wrote to it.
    func bookIfWritten() -> JobControlBook? {
        state.withLock { $0.written ? $0.book : nil }
    }

    /// Changes the book (read from the jobs file first, once) and schedules a write of the jobs file.
    func change(_ body: (inout JobControlBook) -> Void) throws(JobError) {
        let loaded = state.withLock { $0.book != nil }
        var fresh: JobControlBook?
        if !loaded { fresh = try Self.read(JobControlBook.self, at: jobsPath) ?? JobControlBook() }
        let startWriter = state.withLock { state -> Bool in
            if state.book == nil { state.book = fresh }
            body(&state.book!)
            state.written = true
            state.dirty = true
            guard !state.writing else { return false }
            state.writing = true
            return true
        }
        if startWriter {
            let thread = Thread { self.writeWhileDirty() }
            thread.name = "TempoJobs.JSONFileJobStore.jobs"
            thread.start()
        }
    }

    /// On the writer's thread: writes the jobs file until no change is waiting (a failed write is dropped: the next
    /// change writes the whole book again).
    private func writeWhileDirty() {
        while true {
            let book = state.withLock { state -> JobControlBook? in
                guard state.dirty, var book = state.book else {
                    state.writing = false
                    return nil
                }
                state.dirty = false
                book.controls = [:]
                return book
            }
            guard let book else { return }
            try? Self.write(book, to: jobsPath)
        }
    }

    func watch(_ continuation: AsyncStream<[String: JobControl]>.Continuation) -> UInt64 {
        state.withLock { state in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = continuation
            return state.nextWatcher
        }
    }

    func unwatch(_ id: UInt64) {
        _ = state.withLock { $0.watchers.removeValue(forKey: id) }
    }

    /// Reads the control file when its modification time changed (or `force`), and hands the watchers the controls.
    func reloadControlIfChanged(force: Bool = false) {
        var info = stat()
        let modified = stat(controlPath, &info) == 0 ? info.st_mtim : nil
        let changed = state.withLock { state -> Bool in
            let same =
                state.controlModified?.tv_sec == modified?.tv_sec && state.controlModified?.tv_nsec == modified?.tv_nsec
            state.controlModified = modified
            return force || !same
        }
        guard changed, let controls = try? Self.read([String: JobControl].self, at: controlPath) ?? [:] else { return }
        controlChanged(controls)
    }

    /// Keeps the operators' controls and hands every watcher the controls of the known jobs.
    func controlChanged(_ controls: [String: JobControl]) {
        let (all, watchers) = state.withLock {
            state -> ([String: JobControl], [AsyncStream<[String: JobControl]>.Continuation]) in
            var book = state.book ?? JobControlBook()
            book.controls = controls
            if state.book != nil { state.book = book }
            return (book.allControls, Array(state.watchers.values))
        }
        for watcher in watchers { watcher.yield(all) }
    }

    static func read<T: Decodable>(_ type: T.Type, at path: String) throws(JobError) -> T? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw JobError(.unreadable, message: "\(path): cannot read: \(error)")
        }
        do {
            let file = try JSONDecoder.tempo.decode(SideFile<T>.self, from: data)
            guard file.version <= 1 else {
                throw JobError(.newerVersion, message: "\(path): format version \(file.version) is newer than 1")
            }
            return file.contents
        } catch let error as JobError {
            throw error
        } catch {
            throw JobError(.corrupt, message: "\(path): not valid (\(data.count) bytes): \(error)")
        }
    }

    static func write<T: Encodable>(_ value: T, to path: String) throws(JobError) {
        do {
            let data = try JSONEncoder.tempo.encode(SideFile(version: 1, contents: value))
            let temporary = path + ".tmp-\(getpid())"
            try data.write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                unlink(temporary)
                throw JobError(.unwritable, message: "\(path): cannot rename \(temporary) over it (errno \(errno))")
            }
        } catch let error as JobError {
            throw error
        } catch {
            throw JobError(.unwritable, message: "\(path): cannot write: \(error)")
        }
    }

    /// Runs `body` holding an exclusive `flock` on `path` (created if needed).
    static func withLock<T>(_ path: String, _ body: () throws(JobError) -> T) throws(JobError) -> T {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw JobError(.unwritable, message: "\(path): cannot open the lock file (errno \(errno))")
        }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX) == 0 else {
            throw JobError(.unwritable, message: "\(path): cannot lock (errno \(errno))")
        }
        return try body()
    }
}

/// A side file's contents with its format version.
private struct SideFile<T> {
    var version: Int
    var contents: T
}

extension SideFile: Decodable where T: Decodable {}
extension SideFile: Encodable where T: Encodable {}

extension JSONDecoder {
    fileprivate static var tempo: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

extension JSONEncoder {
    fileprivate static var tempo: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
