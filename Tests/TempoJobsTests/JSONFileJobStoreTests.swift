import Foundation
import TempoJobs
import TempoTesting
import Testing

/// The JSON file store: atomic writes, and clear errors for a corrupt, truncated, newer or unwritable file that
/// never cost the other jobs their cursors.
@Suite struct JSONFileJobStoreTests {
    /// A fresh folder for one test's files.
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tempo-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func cursorsRoundTripPerJobAndTheFileIsWrittenWithoutLeftovers() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let store = JSONFileJobStore(path: path)
        #expect(try await store.cursor(for: "a") == nil)
        try await store.save(JobCursor(lastDate: wallDate(10)), for: "a")
        try await store.save(JobCursor(lastDate: wallDate(20)), for: "b")
        try await store.save(JobCursor(lastDate: wallDate(30)), for: "a")
        let reopened = JSONFileJobStore(path: path)
        #expect(try await reopened.cursor(for: "a") == JobCursor(lastDate: wallDate(30)))
        #expect(try await reopened.cursor(for: "b") == JobCursor(lastDate: wallDate(20)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["jobs.json"])
    }

    /// Writes `text` as the file, then checks that reading and writing job "a" both throw `code` naming the file
    /// and the job, and that the file is left as it was.
    private func expectRejected(_ text: String, code: JobError.Code) async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let store = JSONFileJobStore(path: path)
        for operation in ["read", "write"] {
            do {
                if operation == "read" {
                    _ = try await store.cursor(for: "a")
                } else {
                    try await store.save(JobCursor(lastDate: wallDate(1)), for: "a")
                }
                Issue.record("\(operation) of \(text.prefix(40)) did not throw")
            } catch let error as JobError {
                #expect(error.code == code, "\(operation): \(error)")
                #expect(error.message.contains(path) && error.job == "a")
                #expect(error.description.contains(path) && error.description.contains("job \"a\""))
            }
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test func aCorruptFileIsRejectedNamingFileAndJobAndLeftUntouched() async throws {
        try await expectRejected("not json at all", code: .corrupt)
        try await expectRejected("[1, 2, 3]", code: .corrupt)
    }

    @Test func aTruncatedFileIsRejectedAndLeftUntouched() async throws {
        try await expectRejected(#"{"cursors":{"b":{"lastDate":1,"version":1}},"vers"#, code: .corrupt)
    }

    @Test func aFileOfANewerVersionIsRejectedAndLeftUntouched() async throws {
        try await expectRejected(#"{"cursors":{"b":{"lastDate":1,"version":1}},"version":2}"#, code: .newerVersion)
    }

    @Test func oneBadEntryFailsOnlyItsJobAndSavingKeepsIt() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        let text =
            #"{"cursors":{"bad":{"lastDate":"soon"},"new":{"lastDate":1,"version":9},"ok":{"lastDate":5,"version":1}},"version":1}"#
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let store = JSONFileJobStore(path: path)
        await #expect { try await store.cursor(for: "bad") } throws: { ($0 as? JobError)?.code == .corrupt }
        await #expect { try await store.cursor(for: "new") } throws: { ($0 as? JobError)?.code == .newerVersion }
        #expect(try await store.cursor(for: "ok")?.lastDate == Date(timeIntervalSinceReferenceDate: 5))
        try await store.save(JobCursor(lastDate: wallDate(1)), for: "other")
        let saved = try String(contentsOfFile: path, encoding: .utf8)
        #expect(saved.contains(#""bad":{"lastDate":"soon"}"#) && saved.contains(#""version":9"#))
    }

    @Test func anUnwritableFileThrowsNamingFileAndJob() async throws {
        let path = "/nonexistent-\(UUID().uuidString)/jobs.json"
        let store = JSONFileJobStore(path: path)
        await #expect {
            try await store.save(JobCursor(lastDate: wallDate(1)), for: "a")
        } throws: { error in
            guard let error = error as? JobError else { return false }
            return error.code == .unwritable && error.message.contains(path) && error.job == "a"
        }
    }

    @Test func aSchedulerOnACorruptFileRunsItsJobsAndReportsTheFileAndJob() async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("jobs.json").path
        try "{\"cursors\":".write(toFile: path, atomically: true, encoding: .utf8)
        let clock = VirtualClock()
        let log = Trace()
        let stats = try await clock.run {
            let store = ClockHoldingStore(inner: JSONFileJobStore(path: path), clock: clock)
            let scheduler = makeScheduler(on: clock, log: log, store: store)
            try scheduler.register("sync", .every(.seconds(10))) { _ in }
            try await run(scheduler, on: clock, for: .seconds(15))
            return try #require(scheduler.stats(for: "sync"))
        }
        #expect(stats.succeeded == 1)
        #expect(stats.lastError?.contains(path) == true && stats.lastError?.contains("job \"sync\"") == true)
        #expect(log.all.contains { $0.hasPrefix("error job store: cannot read the cursor") && $0.contains("job=sync") })
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"cursors\":")
    }
}

/// Keeps a virtual clock still while a store works: the JSON file store reads and writes on a queue of its own,
/// real I/O that the clock cannot see, so without this the clock could move on before the scheduler has its cursor.
struct ClockHoldingStore: JobStore {
    let inner: any JobStore
    let clock: VirtualClock

    func cursor(for job: String) async throws -> JobCursor? {
        try await clock.holdingTime { try await inner.cursor(for: job) }
    }

    func save(_ cursor: JobCursor, for job: String) async throws {
        try await clock.holdingTime { try await inner.save(cursor, for: job) }
    }
}
