import Dispatch
import Foundation
import Synchronization
import TempoJobs
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON file store off the caller's thread (issue #41): grouped, durable saves on the store's own queue, a
/// newer job entry that is never overwritten, and the file's other members kept.
@Suite(.enabled(if: ThreadBlockingTests.areEnabled, ThreadBlockingTests.skipMessage))
struct JSONFileJobStoreGroupingTests {
    /// A fresh folder for one test's files.
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tempo-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Waits (polling every millisecond, at most 20 s) until `condition` holds; records an issue if it never does.
    private func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Whether a value parsed from JSON is the JSON value of `text`.
    private func sameJSON(_ value: Any, _ text: String) throws -> Bool {
        let expected = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
            == JSONSerialization.data(withJSONObject: expected, options: [.sortedKeys])
    }

    @Test func concurrentSavesAllLandAndAreDurableWhenSaveReturns() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let store = JSONFileJobStore(path: path)
        let count = 400
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let cursor = JobCursor(lastDate: wallDate(Double(index)))
                    try await store.save(cursor, for: "job-\(index)")
                    // Every 40th save: the file on disk holds it as soon as save returns (a fresh store reads it).
                    if index.isMultiple(of: 40) {
                        #expect(try await JSONFileJobStore(path: path).cursor(for: "job-\(index)") == cursor)
                    }
                }
            }
            try await group.waitForAll()
        }
        let reopened = JSONFileJobStore(path: path)
        for index in 0..<count {
            #expect(try await reopened.cursor(for: "job-\(index)") == JobCursor(lastDate: wallDate(Double(index))))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["jobs.json"])
    }

    @Test func savesThatArriveDuringAWriteGoIntoTheNextWriteTogether() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let gate = Gate()
        let store = JSONFileJobStore(path: path, beforeWrite: { gate.pass() })
        let returned = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await store.save(JobCursor(lastDate: wallDate(1)), for: "first")
                returned.add()
            }
            try await waitUntil("the first write started") { gate.arrivals == 1 }
            for index in 0..<1_000 {
                group.addTask {
                    try await store.save(JobCursor(lastDate: wallDate(Double(index))), for: "job-\(index)")
                    returned.add()
                }
            }
            try await waitUntil("1,000 saves wait for the queue") { store.pendingCount == 1_000 }
            #expect(returned.value == 0, "a save returned before its write was durable")
            gate.open()
            try await group.waitForAll()
        }
        #expect(returned.value == 1_001)
        #expect(store.writeCount == 2, "1,001 saves took \(store.writeCount) writes")
        let reopened = JSONFileJobStore(path: path)
        #expect(try await reopened.cursor(for: "first") == JobCursor(lastDate: wallDate(1)))
        for index in stride(from: 0, to: 1_000, by: 37) {
            #expect(try await reopened.cursor(for: "job-\(index)") == JobCursor(lastDate: wallDate(Double(index))))
        }
    }

    @Test func aSlowWriteSuspendsItsSavesAndBlocksNoThreadOfThePool() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let gate = Gate()
        let store = JSONFileJobStore(path: path, beforeWrite: { gate.pass() })
        // More saves than the pool has threads: if a save held its thread while the write is stalled, the task
        // below could not run until the gate opens.
        let saves = ProcessInfo.processInfo.activeProcessorCount + 2
        // The fallback only ends the test if the pool is blocked; the check is that the gate is still closed when
        // another task ran (a generous bound, so that a loaded machine or other tests' work cannot fail it).
        Gate.openLater(gate, after: 60)
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<saves {
                group.addTask { try await store.save(JobCursor(lastDate: wallDate(1)), for: "job-\(index)") }
            }
            try await waitUntil("the write stalls") { gate.arrivals == 1 }
            await Task.detached {}.value
            let waited = start.duration(to: .now)
            #expect(!gate.isOpen, "the gate opened by itself: the pool was blocked (other tasks waited \(waited))")
            gate.open()
            try await group.waitForAll()
        }
        #expect(store.writeCount <= 2)
    }

    @Test func aReadOfAFileThatBlocksSuspendsAndLeavesThePoolFree() async throws {
        // A named pipe blocks whoever opens it for reading until a writer comes: a file system that stalls.
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        #expect(mkfifo(path, 0o600) == 0)
        let text = #"{"cursors":{"a":{"lastDate":5,"version":1}},"version":1}"#
        let feeder = PipeFeeder(path: path, text: text)
        feeder.feed(after: 60)  // unblocks a pool that the readers hold, so the test ends (and fails) anyway
        let store = JSONFileJobStore(path: path)
        let readers = ProcessInfo.processInfo.activeProcessorCount + 2
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: JobCursor?.self) { group in
            for _ in 0..<readers {
                group.addTask { try await store.cursor(for: "a") }
            }
            for _ in 0..<readers { await Task.yield() }
            await Task.detached {}.value
            let waited = start.duration(to: .now)
            #expect(!feeder.hasFed, "the pipe was fed by the fallback: the pool was blocked (waited \(waited))")
            feeder.feed(after: 0)
            for try await cursor in group {
                #expect(cursor == JobCursor(lastDate: Date(timeIntervalSinceReferenceDate: 5)))
            }
        }
    }

    @Test func aNewerVersionEntryIsNeverOverwrittenAndOtherJobsStillSave() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let newer = #"{"lastDate":7,"version":2,"window":[1,2]}"#
        try #"{"cursors":{"a":\#(newer),"b":{"lastDate":3,"version":1}},"version":1}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let store = JSONFileJobStore(path: path)
        for attempt in 1...2 {
            do {
                try await store.save(JobCursor(lastDate: wallDate(1)), for: "a")
                Issue.record("save \(attempt) of the newer entry did not throw")
            } catch let error as JobError {
                #expect(error.code == .newerVersion && error.job == "a", "\(error)")
                #expect(error.message.contains(path) && error.description.contains("job \"a\""))
            }
        }
        try await store.save(JobCursor(lastDate: wallDate(2)), for: "b")
        try await store.save(JobCursor(lastDate: wallDate(3)), for: "c")
        let reopened = JSONFileJobStore(path: path)
        await #expect { try await reopened.cursor(for: "a") } throws: { ($0 as? JobError)?.code == .newerVersion }
        #expect(try await reopened.cursor(for: "b") == JobCursor(lastDate: wallDate(2)))
        #expect(try await reopened.cursor(for: "c") == JobCursor(lastDate: wallDate(3)))
        let top = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let entry = try #require(((top as? [String: Any])?["cursors"] as? [String: Any])?["a"])
        #expect(try sameJSON(entry, newer), "the newer entry changed")
    }

    @Test func theFilesOtherTopLevelMembersAreKept() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        try #"{"cursors":{},"note":{"by":"ops","n":1},"version":1}"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        try await JSONFileJobStore(path: path).save(JobCursor(lastDate: wallDate(1)), for: "a")
        let top = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let note = try #require((top as? [String: Any])?["note"])
        #expect(try sameJSON(note, #"{"n":1,"by":"ops"}"#))
    }

    @Test func concurrentSavesOnACorruptFileAllThrowNamingTheirJobAndLeaveItUntouched() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let text = #"{"cursors":{"b":{"lastDate":1,"version":1}},"vers"#
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let store = JSONFileJobStore(path: path)
        let codes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        try await store.save(JobCursor(lastDate: wallDate(1)), for: "job-\(index)")
                        return false
                    } catch let error as JobError {
                        return error.code == .corrupt && error.job == "job-\(index)" && error.message.contains(path)
                    }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(codes.count == 200 && codes.allSatisfy { $0 })
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["jobs.json"])
    }

    @Test func aFileChangedByAnotherWriterIsReadAgainNotOverwritten() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let store = JSONFileJobStore(path: path)
        try await store.save(JobCursor(lastDate: wallDate(1)), for: "a")
        let text = #"{"cursors":{"a":{"lastDate":1,"version":1}},"version":2}"#
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        await #expect {
            try await store.save(JobCursor(lastDate: wallDate(2)), for: "a")
        } throws: { ($0 as? JobError)?.code == .newerVersion }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }
}

/// A count added to from any task.
final class Tally: Sendable {
    private let state = Mutex(0)

    func add() { state.withLock { $0 += 1 } }

    var value: Int { state.withLock { $0 } }
}

/// A gate the store's write hook passes: the first pass waits until the test opens it (a stalled file system).
final class Gate: Sendable {
    private let state = Mutex((arrivals: 0, open: false))
    private let opened = DispatchSemaphore(value: 0)

    /// Called on the store's queue before each write: counts, and blocks the first write until `open()`.
    func pass() {
        let first = state.withLock {
            $0.arrivals += 1
            return $0.arrivals == 1 && !$0.open
        }
        if first { opened.wait() }
    }

    /// Opens the gate (once; later calls do nothing).
    func open() {
        let opening = state.withLock { value -> Bool in
            let wasOpen = value.open
            value.open = true
            return !wasOpen
        }
        if opening { opened.signal() }
    }

    var arrivals: Int { state.withLock { $0.arrivals } }
    var isOpen: Bool { state.withLock { $0.open } }

    /// Opens `gate` from a thread outside the pool after `seconds`, in case the pool is blocked.
    static func openLater(_ gate: Gate, after seconds: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { gate.open() }
    }
}

/// Writes a text once into a named pipe from a thread outside the pool, then replaces the pipe with a plain file
/// holding the same text (so that readers that come later do not block).
final class PipeFeeder: Sendable {
    let path: String
    let text: String
    private let done = Mutex(false)

    init(path: String, text: String) {
        self.path = path
        self.text = text
    }

    /// Whether the pipe was fed.
    var hasFed: Bool { done.withLock { $0 } }

    /// Feeds the pipe after `seconds` (once; later calls do nothing).
    func feed(after seconds: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            let first = self.done.withLock { value -> Bool in
                let wasDone = value
                value = true
                return !wasDone
            }
            guard first else { return }
            // Opened for reading and writing, the pipe never blocks its opener and releases a reader blocked in
            // `open`; the plain file then takes the pipe's place for readers that come later.
            let plain = self.path + ".plain"
            try? self.text.write(toFile: plain, atomically: false, encoding: .utf8)
            let descriptor = open(self.path, O_RDWR)
            rename(plain, self.path)
            if descriptor >= 0 {
                _ = self.text.withCString { write(descriptor, $0, strlen($0)) }
                close(descriptor)
            }
        }
    }
}
