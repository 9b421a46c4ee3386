import Foundation
import TempoLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// @unchecked Sendable: the mutable state (`contents`) is only read or written by `serve(_:)`, which only the
// store's drain thread calls (`JSONFileJobStore.drain()`, one drain at a time), so it is never touched from two threads at once.
/// The file of a ``JSONFileJobStore`` and its entries as last read or written: what only the store's drain thread touches.
final class JSONCursorFile: @unchecked Sendable {
    let path: String
    /// The folder of the file, flushed after each rename.
    let folder: String
    let beforeWrite: (@Sendable () -> Void)?
    /// Writes of the file so far (counted before the saves of a write are answered).
    let writes = TempoMutex(0)
    /// The file's contents once read (and after each write); `nil` until a read succeeds, and again when the file
    /// changed under the store.
    private var contents: Contents?
    /// The identity of the file as last read or written (`nil`: there was no file), to notice another writer.
    private var identity: Identity??
    /// When the last write started and how many bytes it wrote: the next waits so that the store writes at most
    /// ``bytesPerSecond`` (saves that arrive meanwhile join its group).
    private var lastWrite: (start: ContinuousClock.Instant, bytes: Int)?

    /// The most the store writes per second, on average over its writes: at 1,000 saves a second into a file of
    /// 10,000 jobs (about 0.5 MB), about 50 writes a second instead of one per fsync.
    static let bytesPerSecond = 25_000_000

    /// How long the drain waits before it takes the next group, so that writes keep under ``bytesPerSecond``:
    /// zero when the last write was long enough ago (a lone save is written at once).
    func pauseBeforeNextGroup() -> Duration {
        guard let lastWrite else { return .zero }
        let spacing = Duration.nanoseconds(Int64(lastWrite.bytes) * 1_000_000_000 / Int64(Self.bytesPerSecond))
        let elapsed = lastWrite.start.duration(to: .now)
        return elapsed < spacing ? spacing - elapsed : .zero
    }

    init(path: String, beforeWrite: (@Sendable () -> Void)?) {
        self.path = path
        let parent = (path as NSString).deletingLastPathComponent
        self.folder = parent.isEmpty ? "." : parent
        self.beforeWrite = beforeWrite
    }

    /// One entry of the file's `cursors` object, kept as JSON text (rendered once, when read or saved).
    struct Entry {
        /// The job's name as a JSON string, quotes included.
        var key: [UInt8]
        /// The entry's JSON value.
        var value: [UInt8]
        /// The entry's `"version"` when it is above ``JobCursor/currentVersion`` (written by a newer version).
        var newerVersion: Int?
    }

    /// The file's contents: the cursor entries and the other top-level members, as JSON text.
    struct Contents {
        var entries: [String: Entry] = [:]
        /// The jobs in the order they are written; `nil` after a job was added (sorted again at the next write).
        var order: [String]? = []
        /// Top-level members other than `version` and `cursors`, kept as read.
        var others: [(key: [UInt8], value: [UInt8])] = []
        /// The size of the last file written or read, to reserve the next one.
        var size = 0
    }

    /// What tells one version of the file from another without reading it: its inode, size and change time.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
    }

    /// The file's identity now, or `nil` when there is no file (or it cannot be examined: reading it will say why).
    private func currentIdentity() -> Identity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let changed = status.st_ctimespec
        #else
        let changed = status.st_ctim
        #endif
        return Identity(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            seconds: Int(changed.tv_sec), nanoseconds: Int(changed.tv_nsec))
    }

    /// A failure of the file as a whole, thrown to every request of the group, each naming its own job.
    struct Failure: Error {
        let code: JobError.Code
        let message: String
    }

    private func fail(_ code: JobError.Code, job: String, _ message: String) -> JobError {
        JobError.store(code, job: job, at: path, message)
    }

    /// Serves one group of requests: reads the file if not yet read (or changed by another writer), answers the
    /// reads, applies the saves and, if any applied, writes the file once and then answers them.
    func serve(_ group: [JSONFileRequest]) {
        // Taken out of `contents` so that changing it does not copy the entries (it is put back below).
        guard var working = takeContents(failing: group) else { return }
        defer { contents = working }
        var undo: [String: Entry?] = [:]
        let orderBefore = working.order
        var saved: [(job: String, continuation: CheckedContinuation<Void, any Error>)] = []
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for request in group {
            guard case .read(let job, let continuation) = request else { continue }
            continuation.resume(with: Result { () throws(JobError) in try cursor(of: job, in: working) })
        }
        for request in group {
            guard case .save(let job, let cursor, let continuation) = request else { continue }
            let entry = working.entries[job]
            if let version = entry?.newerVersion {
                continuation.resume(
                    throwing: fail(
                        .newerVersion, job: job,
                        "the cursor of job \"\(job)\" has version \(version), written by a newer version (this "
                            + "version reads up to \(JobCursor.currentVersion)); it is kept, not overwritten"))
                continue
            }
            let value: Data
            do {
                value = try encoder.encode(cursor)
            } catch {
                continuation.resume(
                    throwing: fail(.corrupt, job: job, "cannot encode the cursor of job \"\(job)\": \(error)"))
                continue
            }
            if undo.index(forKey: job) == nil { undo[job] = .some(entry) }
            if entry == nil { working.order = nil }
            working.entries[job] = Entry(key: entry?.key ?? Self.quoted(job), value: [UInt8](value), newerVersion: nil)
            saved.append((job, continuation))
        }
        guard !saved.isEmpty else { return }
        beforeWrite?()
        var failure: Failure?
        do throws(Failure) {
            try persist(&working)
            identity = .some(currentIdentity())
        } catch {
            failure = error
            // The file is as it was: so are the entries.
            for (job, entry) in undo { working.entries[job] = entry }
            working.order = orderBefore
        }
        writes.withLock { $0 += 1 }
        for (job, continuation) in saved {
            if let failure {
                continuation.resume(throwing: fail(failure.code, job: job, failure.message))
            } else {
                continuation.resume()
            }
        }
    }

    /// The file's contents, moved out of `contents`: as kept, or read now when not yet read or changed by another
    /// writer since. When the file cannot be read, answers every request of `group` with the failure and returns
    /// `nil`.
    private func takeContents(failing group: [JSONFileRequest]) -> Contents? {
        let now = currentIdentity()
        if let kept = contents, identity == .some(now) {
            contents = nil
            return kept
        }
        contents = nil
        do throws(Failure) {
            let read = try load()
            identity = .some(now)
            return read
        } catch {
            for request in group {
                switch request {
                case .read(let job, let continuation):
                    continuation.resume(throwing: fail(error.code, job: job, error.message))
                case .save(let job, _, let continuation):
                    continuation.resume(throwing: fail(error.code, job: job, error.message))
                }
            }
            return nil
        }
    }

    /// The cursor of `job` in `contents`.
    private func cursor(of job: String, in contents: Contents) throws(JobError) -> JobCursor? {
        guard let entry = contents.entries[job] else { return nil }
        if let version = entry.newerVersion {
            throw fail(
                .newerVersion, job: job,
                "the cursor of job \"\(job)\" has version \(version); this version reads up to "
                    + "\(JobCursor.currentVersion)")
        }
        do {
            return try JSONDecoder().decode(JobCursor.self, from: Data(entry.value))
        } catch {
            throw fail(.corrupt, job: job, "the cursor of job \"\(job)\" is not valid: \(error)")
        }
    }

    // MARK: Reading

    /// Reads and parses the file; a missing file is empty contents.
    private func load() throws(Failure) -> Contents {
        guard let data = try readBytes() else { return Contents() }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw Failure(code: .corrupt, message: "not valid JSON (corrupt or truncated, \(data.count) bytes)")
        }
        guard let top = object as? [String: Any], let version = top["version"] as? Int,
            let cursors = top["cursors"] as? [String: Any]
        else {
            throw Failure(code: .corrupt, message: "not a cursor file (expected {\"version\": 1, \"cursors\": {…}})")
        }
        guard version <= JSONFileJobStore.formatVersion else {
            throw Failure(
                code: .newerVersion,
                message: "written by a newer version (format \(version); this version reads up to "
                    + "\(JSONFileJobStore.formatVersion))")
        }
        var contents = Contents()
        contents.size = data.count
        for (job, value) in cursors {
            var newerVersion: Int?
            if let version = (value as? [String: Any])?["version"] as? Int, version > JobCursor.currentVersion {
                newerVersion = version
            }
            contents.entries[job] = Entry(
                key: Self.quoted(job), value: try Self.text(of: value), newerVersion: newerVersion)
        }
        contents.order = nil
        for (key, value) in top where key != "version" && key != "cursors" {
            contents.others.append((Self.quoted(key), try Self.text(of: value)))
        }
        contents.others.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return contents
    }

    /// The file's bytes, or `nil` when there is no file.
    private func readBytes() throws(Failure) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw Failure(code: .unreadable, message: "the file exists but cannot be read: \(Self.describe(code))")
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Failure(code: .unreadable, message: "the file exists but cannot be read: \(Self.describe(code))")
            }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// A JSON value read from the file, as JSON text (object keys sorted).
    private static func text(of value: Any) throws(Failure) -> [UInt8] {
        do {
            return [UInt8](
                try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed]))
        } catch {
            throw Failure(code: .corrupt, message: "a value of the file cannot be kept: \(error)")
        }
    }

    // MARK: Writing

    /// Writes `contents` as the whole file: to a temporary file in the same folder, flushed, renamed over the file,
    /// then the folder flushed.
    private func persist(_ contents: inout Contents) throws(Failure) {
        if contents.order == nil {
            contents.order = contents.entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(contents.size + 4096)
        bytes.append(contentsOf: #"{"cursors":{"#.utf8)
        for (index, job) in (contents.order ?? []).enumerated() {
            guard let entry = contents.entries[job] else { continue }
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: entry.key)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: entry.value)
        }
        bytes.append(UInt8(ascii: "}"))
        for (key, value) in contents.others {
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: key)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: value)
        }
        bytes.append(contentsOf: #","version":\#(JSONFileJobStore.formatVersion)}"#.utf8)
        contents.size = bytes.count
        lastWrite = (ContinuousClock.now, bytes.count)

        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw Failure(
                code: .unwritable, message: "cannot create the temporary file \(temporary): \(Self.describe(errno))")
        }
        var failure: String?
        var written = 0
        while written < bytes.count, failure == nil {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count >= 0 {
                written += count
            } else if errno != EINTR {
                failure = "cannot write the temporary file \(temporary): \(Self.describe(errno))"
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = "cannot flush the temporary file \(temporary): \(Self.describe(errno))"
        }
        if close(descriptor) != 0, failure == nil {
            failure = "cannot close the temporary file \(temporary): \(Self.describe(errno))"
        }
        if failure == nil, rename(temporary, path) != 0 {
            failure = "cannot rename \(temporary) over the file: \(Self.describe(errno))"
        }
        if let failure {
            unlink(temporary)
            throw Failure(code: .unwritable, message: failure)
        }
        try flushFolder()
    }

    /// Flushes the folder, so that the rename is durable. A file system that cannot flush a folder (`EINVAL`) is
    /// taken as flushing renames with the file.
    private func flushFolder() throws(Failure) {
        let descriptor = open(folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw Failure(
                code: .unwritable, message: "cannot open the folder \(folder) to flush it: \(Self.describe(errno))")
        }
        defer { close(descriptor) }
        if fsync(descriptor) != 0, errno != EINVAL {
            throw Failure(code: .unwritable, message: "cannot flush the folder \(folder): \(Self.describe(errno))")
        }
    }

    // MARK: JSON text

    /// `string` as a JSON string, quotes included.
    static func quoted(_ string: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(string.utf8.count + 2)
        let hex = Array("0123456789abcdef".utf8)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return bytes
    }

    private static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
