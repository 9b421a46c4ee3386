import Foundation
import TempoLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``JobStore`` in one JSON file, written atomically: each save writes the whole file to a temporary file in the
/// same folder, flushes it, and renames it over the old one, so a crash never leaves a half-written file.
///
/// The file holds `{"version": 1, "cursors": {"<job>": {"lastDate": …, "version": 1}}}`. Each job's cursor is
/// decoded on its own, so one bad entry fails only that job. A file that is corrupt, truncated or from a newer
/// version makes reads and writes throw ``JobError`` naming the file and the job, and is never overwritten:
/// the other jobs' cursors in it are neither lost nor replaced. A missing file reads as no cursors; the first save
/// creates it (not its folder).
///
/// Thread-safety: reads and writes of one store are serialized by a lock; two stores (or processes) on one file
/// are not coordinated.
public final class JSONFileJobStore: JobStore {
    /// The file's format version this version writes and reads.
    public static var formatVersion: Int { 1 }

    /// The file's path.
    public let path: String
    private let lock = TempoMutex(())

    /// Creates a store on the file at `path`; nothing is read until a job asks.
    ///
    /// - Parameter path: The file's path.
    public init(path: String) {
        self.path = path
    }

    /// The cursor stored for `job`, or `nil` when the file or the entry does not exist.
    ///
    /// - Parameter job: The job's name.
    /// - Returns: The cursor.
    /// - Throws: ``JobError`` naming the file and the job: ``JobError/Code/unreadable`` when the file cannot be
    ///   read, ``JobError/Code/corrupt`` when it is corrupt or truncated, ``JobError/Code/newerVersion`` when the
    ///   file or the entry is of a newer version.
    public func cursor(for job: String) async throws -> JobCursor? {
        try lock.withLock { _ throws(JobError) -> JobCursor? in
            guard let entries = try readEntries(job: job), let entry = entries[job] else { return nil }
            return try decode(entry, job: job)
        }
    }

    /// Stores `cursor` for `job`, keeping every other entry of the file as it was.
    ///
    /// - Parameters:
    ///   - cursor: The cursor.
    ///   - job: The job's name.
    /// - Throws: ``JobError`` naming the file and the job: as ``cursor(for:)`` when the file exists but cannot be
    ///   read or is not valid (it is then left untouched), ``JobError/Code/unwritable`` when it cannot be written.
    public func save(_ cursor: JobCursor, for job: String) async throws {
        try lock.withLock { _ throws(JobError) in
            var entries = try readEntries(job: job) ?? [:]
            entries[job] = try encode(cursor, job: job)
            try write(["version": Self.formatVersion, "cursors": entries], job: job)
        }
    }

    /// An error that names the job and the file, for example `corrupt: job "report": /var/lib/app/jobs.json: not
    /// valid JSON (corrupt or truncated, 12 bytes)`.
    private func fail(_ code: JobError.Code, job: String, _ message: String) -> JobError {
        JobError.store(code, job: job, at: path, message)
    }

    /// The file's entries by job, or `nil` when there is no file.
    private func readEntries(job: String) throws(JobError) -> [String: Any]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw fail(.unreadable, job: job, "the file exists but cannot be read")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw fail(.corrupt, job: job, "not valid JSON (corrupt or truncated, \(data.count) bytes)")
        }
        guard let top = object as? [String: Any], let version = top["version"] as? Int,
            let entries = top["cursors"] as? [String: Any]
        else {
            throw fail(.corrupt, job: job, "not a cursor file (expected {\"version\": 1, \"cursors\": {…}})")
        }
        guard version <= Self.formatVersion else {
            throw fail(
                .newerVersion, job: job,
                "written by a newer version (format \(version); this version reads up to \(Self.formatVersion))")
        }
        return entries
    }

    private func decode(_ entry: Any, job: String) throws(JobError) -> JobCursor {
        let cursor: JobCursor
        do {
            let data = try JSONSerialization.data(withJSONObject: entry)
            cursor = try JSONDecoder().decode(JobCursor.self, from: data)
        } catch {
            throw fail(.corrupt, job: job, "the cursor of job \"\(job)\" is not valid: \(error)")
        }
        guard cursor.version <= JobCursor.currentVersion else {
            throw fail(
                .newerVersion, job: job,
                "the cursor of job \"\(job)\" has version \(cursor.version); this version reads up to "
                    + "\(JobCursor.currentVersion)")
        }
        return cursor
    }

    private func encode(_ cursor: JobCursor, job: String) throws(JobError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: JSONEncoder().encode(cursor))
        } catch {
            throw fail(.corrupt, job: job, "cannot encode the cursor of job \"\(job)\": \(error)")
        }
    }

    /// Writes the whole file to a temporary file beside it, flushes it, and renames it over the file.
    private func write(_ contents: [String: Any], job: String) throws(JobError) {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        do {
            let data = try JSONSerialization.data(withJSONObject: contents, options: [.sortedKeys])
            guard FileManager.default.createFile(atPath: temporary, contents: data) else {
                throw fail(.unwritable, job: job, "cannot create the temporary file \(temporary)")
            }
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temporary))
            try handle.synchronize()
            try handle.close()
        } catch let error as JobError {
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail(.unwritable, job: job, "cannot write the temporary file \(temporary): \(error)")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: temporary)
            throw fail(
                .unwritable, job: job, "cannot rename \(temporary) over the file: \(String(cString: strerror(code)))")
        }
    }
}
