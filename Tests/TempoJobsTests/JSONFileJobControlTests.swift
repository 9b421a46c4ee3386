import Foundation
import Logging
import TempoJobs
import Testing

/// A scheduler on a `JSONFileJobStore` follows the control file another store object (another process: the
/// `tempo jobs` command) writes beside it, and writes the jobs file that object reads (issue #45). Real files and
/// time: each wait is for an event, bounded only to catch a hang (10 minutes: in a run of every target at once the
/// PostgreSQL tests held the cooperative pool for about 40 s, and under ThreadSanitizer in CI the whole suite's
/// tests waited about 130 s, so 30 s and then 2 minute bounds failed; the CI step's own limit catches a real hang).
@Suite struct JSONFileJobControlTests {
    private func waitUntil(
        _ what: Comment, within limit: Duration = .seconds(600), _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now.advanced(by: limit)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting: \(what)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test func aPauseAndARunNowWrittenBesideTheStoreReachItsScheduler() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tempo-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("jobs.json").path
        let scheduler = JobScheduler(
            store: JSONFileJobStore(path: path), logger: Logger(label: "test"), clock: ContinuousClock())
        try scheduler.register("tick", .every(.milliseconds(100))) { _ in }
        let steering = JSONFileJobStore(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await scheduler.run() }
            defer { scheduler.triggerGracefulShutdown() }
            try await waitUntil("the job published and run") {
                try await steering.jobOverviews().first?.lastRun != nil
            }
            try await steering.pause(job: "tick")
            try await waitUntil("the pause seen") { scheduler.stats(for: "tick")?.isPaused == true }
            let started = try #require(scheduler.stats(for: "tick")).started
            try await waitUntil("three dates skipped") { (scheduler.stats(for: "tick")?.skippedWhilePaused ?? 0) >= 3 }
            #expect(scheduler.stats(for: "tick")?.started == started)
            let date = try await steering.requestRun(of: "tick")
            try await waitUntil("the run-now run in the history") {
                try await steering.jobDetail(named: "tick", historyLimit: 1)?.history.first?.plannedDate == date
            }
            #expect(scheduler.stats(for: "tick")?.runNow == 1)
            try await steering.resume(job: "tick")
            try await waitUntil("runs again") { (scheduler.stats(for: "tick")?.started ?? 0) >= started + 3 }
        }
        let detail = try #require(try await steering.jobDetail(named: "tick", historyLimit: 100))
        #expect(detail.overview.state == .active && detail.overview.pendingRuns == 0)
        #expect(detail.history.filter { $0.trigger == .runNow }.count == 1)
    }
}
