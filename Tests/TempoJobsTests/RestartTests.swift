import Foundation
import Synchronization
import TempoJobs
import TempoTesting
import Testing

/// A store that stops writing once "crashed", as a process that died would: what it holds is what a restart sees.
final class CrashableStore: JobStore {
    let inner = InMemoryJobStore()
    private let crashed = Mutex(false)

    func crash() { crashed.withLock { $0 = true } }

    func cursor(for job: String) async throws -> JobCursor? {
        try await inner.cursor(for: job)
    }

    func save(_ cursor: JobCursor, for job: String) async throws {
        guard !crashed.withLock({ $0 }) else { return }
        try await inner.save(cursor, for: job)
    }
}

/// Cursors survive a restart; the catch-up policy decides about dates missed while the process was down.
@Suite struct RestartTests {
    /// Runs a job every 10 s for 25 s (dates 10 and 20), stays down for `downtime`, then starts a second scheduler
    /// on the same store for 5 s; returns the planned dates (seconds) the second one ran and its statistics.
    private func restart(catchUp: JobOptions.CatchUp, downtime: Duration) async throws -> ([Double], JobStats) {
        let clock = VirtualClock()
        let store = InMemoryJobStore()
        let dates = Trace()
        let options = JobOptions(catchUp: catchUp)
        let stats = try await clock.run {
            let first = makeScheduler(on: clock, store: store)
            try first.register("sync", .every(.seconds(10)), options: options) { _ in }
            try await run(first, on: clock, for: .seconds(25))
            try await clock.sleep(for: downtime)
            let second = makeScheduler(on: clock, store: store)
            try second.register("sync", .every(.seconds(10)), options: options) { context in
                dates.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await run(second, on: clock, for: .seconds(5))
            return try #require(second.stats(for: "sync"))
        }
        return (dates.all.compactMap(Double.init), stats)
    }

    @Test func skipRunsNoMissedDateAndCountsThem() async throws {
        // Down from 25 to 62: dates 30, 40, 50 and 60 missed; the next is 70, after the second run ended.
        let (dates, stats) = try await restart(catchUp: .skip, downtime: .seconds(37))
        #expect(dates.isEmpty && stats.missed == 4)
    }

    @Test func onceRunsOneRunStandingForTheLatestMissedDate() async throws {
        let (dates, stats) = try await restart(catchUp: .once, downtime: .seconds(37))
        #expect(dates == [60] && stats.missed == 3 && stats.started == 1)
    }

    @Test func eachRunsEveryMissedDateWithinTheGraceWindowOldestFirst() async throws {
        let (dates, stats) = try await restart(catchUp: .each(within: .seconds(25)), downtime: .seconds(37))
        // At 62, the window reaches back to 37: dates 40, 50 and 60 run; 30 is too old.
        #expect(dates == [40, 50, 60] && stats.missed == 1)
    }

    @Test func aFixedRateKeepsItsPhaseAcrossARestart() async throws {
        let (dates, _) = try await restart(catchUp: .skip, downtime: .seconds(43))
        // Restarted at 68: the grid of the stored date 20 gives 70 (not 78).
        #expect(dates == [70])
    }

    /// Runs date 10 normally, "crashes" during the run of date 20, restarts at 25 with catch-up `.once`; returns the
    /// planned dates the restarted scheduler ran.
    private func crashDuringARun(_ guarantee: JobOptions.Guarantee) async throws -> [Double] {
        let clock = VirtualClock()
        let store = CrashableStore()
        let dates = Trace()
        let options = JobOptions(catchUp: .once, guarantee: guarantee)
        try await clock.run {
            let first = makeScheduler(on: clock, store: store)
            try first.register("pay", .every(.seconds(10)), options: options) { context in
                if context.plannedDate == wallDate(20) {
                    store.crash()  // the process dies in the middle of this run
                    try await clock.sleep(for: .seconds(1000))
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await first.run() }
                await settle(clock)
                try await clock.sleep(for: .seconds(25))
                group.cancelAll()  // nothing the dead process does afterwards reaches the store
            }
            let second = makeScheduler(on: clock, store: store.inner)
            try second.register("pay", .every(.seconds(10)), options: options) { context in
                dates.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await run(second, on: clock, for: .seconds(3))
        }
        return dates.all.compactMap(Double.init)
    }

    @Test func atMostOnceWritesTheCursorBeforeTheRunSoACrashLosesTheDate() async throws {
        #expect(try await crashDuringARun(.atMostOnce) == [])
    }

    @Test func atLeastOnceWritesTheCursorAfterTheRunSoACrashRunsTheDateAgain() async throws {
        #expect(try await crashDuringARun(.atLeastOnce) == [20])
    }

    @Test func aOneShotWhoseDatePassedWhileDownRunsOnStartUnlessSkipped() async throws {
        for (catchUp, expected) in [(JobOptions.CatchUp.once, 1), (.skip, 0)] {
            let clock = VirtualClock()
            let started = try await clock.run {
                try await clock.sleep(for: .seconds(10))
                let scheduler = makeScheduler(on: clock)
                try scheduler.register("once", .at(wallDate(5)), options: JobOptions(catchUp: catchUp)) { _ in
                }
                try await run(scheduler, on: clock, for: .seconds(5))
                return scheduler.stats(for: "once")?.started
            }
            #expect(started == expected)
        }
    }
}
