import Foundation
import Logging
import Synchronization
import TempoJobs
import TempoTesting
import Testing

/// A coordinator whose "database" is down while `isDown`: it throws `coordinatorUnavailable`, as TempoPostgres does
/// after its retries; otherwise it grants each date once (a second claim of a date is refused, as a finished row).
final class FlakyCoordinator: JobCoordinator {
    private let state = Mutex((isDown: false, granted: [Date]()))
    private let clock: VirtualClock?
    private let claimTime: Duration

    init(clock: VirtualClock? = nil, claimTime: Duration = .zero) {
        self.clock = clock
        self.claimTime = claimTime
    }

    func setDown(_ down: Bool) { state.withLock { $0.isDown = down } }

    var granted: [Date] { state.withLock { $0.granted } }

    func claim(job: String, plannedDate: Date, logger: Logger) async throws(JobError) -> (any JobClaim)? {
        if let clock, claimTime > .zero { try? await clock.sleep(for: claimTime) }
        return try state.withLock { state throws(JobError) -> (any JobClaim)? in
            guard !state.isDown else {
                throw JobError(.coordinatorUnavailable, job: job, message: "the database is down")
            }
            guard !state.granted.contains(plannedDate) else { return nil }
            state.granted.append(plannedDate)
            return LocalJobClaim()
        }
    }
}

/// Dates whose claims the coordinator cannot decide (its database is down) are handed to the catch-up policy once it
/// answers again, exactly as dates missed while the process was down; none runs twice.
@Suite struct OutageTests {
    /// A job every 10 s; the coordinator is down from 15 to 45 (dates 20, 30 and 40 cannot be decided). Returns the
    /// dates granted, in order, and the job's statistics after 65 s.
    private func outage(_ catchUp: JobOptions.CatchUp) async throws -> ([Double], JobStats) {
        let clock = VirtualClock()
        let coordinator = FlakyCoordinator()
        let stats = try await clock.run {
            let logger = Logger(label: "test") { _ in RecordingLogHandler(trace: Trace()) }
            let scheduler = JobScheduler(
                configuration: .init(randomSeed: 1), coordinator: coordinator, logger: logger,
                wallClock: clock.wallDate, clock: clock)
            try scheduler.register("pay", .every(.seconds(10)), options: JobOptions(catchUp: catchUp)) { _ in
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await scheduler.run() }
                await settle(clock)
                try await clock.sleep(for: .seconds(15))
                coordinator.setDown(true)
                try await clock.sleep(for: .seconds(30))
                coordinator.setDown(false)
                try await clock.sleep(for: .seconds(20))
                scheduler.triggerGracefulShutdown()
                try await group.waitForAll()
            }
            return try #require(scheduler.stats(for: "pay"))
        }
        return (coordinator.granted.map { $0.timeIntervalSince(wallDate(0)) }, stats)
    }

    @Test func skipCountsTheOutagesDatesAsMissed() async throws {
        let (granted, stats) = try await outage(.skip)
        #expect(granted == [10, 50, 60])
        #expect(stats.missed == 3 && stats.started == 3)
    }

    @Test func onceRunsTheLatestDateOfTheOutageWhenTheCoordinatorAnswersAgain() async throws {
        let (granted, stats) = try await outage(.once)
        #expect(granted == [10, 50, 40, 60])
        #expect(stats.missed == 2 && stats.started == 4)
    }

    @Test func eachRunsTheOutagesDatesInsideTheWindowOldestFirst() async throws {
        let (all, allStats) = try await outage(.each(within: .seconds(45)))
        #expect(all == [10, 50, 20, 30, 40, 60])
        #expect(allStats.missed == 0)
        let (some, someStats) = try await outage(.each(within: .seconds(25)))
        #expect(some == [10, 50, 40, 60])
        #expect(someStats.missed == 2)
    }

    @Test func latenessRunsFromThePlannedDateToTheBodysStartClaimIncluded() async throws {
        let clock = VirtualClock()
        let coordinator = FlakyCoordinator(clock: clock, claimTime: .seconds(3))
        let lateness = Trace()
        try await clock.run {
            let logger = Logger(label: "test") { _ in RecordingLogHandler(trace: Trace()) }
            let scheduler = JobScheduler(
                configuration: .init(randomSeed: 1), coordinator: coordinator, logger: logger,
                wallClock: clock.wallDate, clock: clock)
            try scheduler.register("slow-claim", .every(.seconds(10))) { context in
                lateness.append("\(context.lateness)")
            }
            try await run(scheduler, on: clock, for: .seconds(15))
        }
        #expect(lateness.all == ["\(Duration.seconds(3))"])
    }
}
