import Foundation
import Logging
import Synchronization
import TempoJobs
import TempoPlans
import TempoTesting
import Testing

/// A coordinator whose first date was claimed by a replica that died: it refuses that date's first claim, reports
/// it as abandoned from `abandonedFrom` on (every time it is asked, as a database would until the date is run
/// again), and grants every other claim.
private final class DeadReplicaCoordinator: JobCoordinator {
    let lost: Date
    let abandonedFrom: Date
    let trace: Trace
    private let refused = Mutex(false)

    init(lost: Date, abandonedFrom: Date, trace: Trace) {
        self.lost = lost
        self.abandonedFrom = abandonedFrom
        self.trace = trace
    }

    func claim(job: String, plannedDate: Date, logger: Logger) async -> (any JobClaim)? {
        let refuse = plannedDate == lost && !refused.withLock { $0 }
        if refuse {
            refused.withLock { $0 = true }
            return nil
        }
        return LocalJobClaim()
    }

    func abandonedDates(job: String, before date: Date, logger: Logger) async -> [Date] {
        trace.append("asked before \(date.timeIntervalSince(wallDate(0)))")
        return date >= abandonedFrom ? [lost] : []
    }
}

/// A coordinator whose dates in `lost` were claimed by replicas that stopped: it refuses each one's first claim,
/// reports it as abandoned from its own instant on (a lease that ran out then) until it is claimed again, as a
/// database would, and grants every other claim.
private final class LostLeasesCoordinator: JobCoordinator {
    let lost: [Date: Date]
    private let claimed = Mutex<[Date: Int]>([:])
    /// The dates of each settle call, in order; a date settled by a call that did not fail is no longer reported, as
    /// a database's finished row.
    let settled = Mutex<[[Date]]>([])
    private let done = Mutex<Set<Date>>([])
    /// How many settle calls fail (the database did not answer), from the first.
    private let failing: Mutex<Int>

    init(lost: [Date: Date], failingSettles: Int = 0) {
        self.lost = lost
        failing = Mutex(failingSettles)
    }

    func settleAbandoned(job: String, dates: [Date], logger: Logger) async {
        settled.withLock { $0.append(dates) }
        let fails = failing.withLock { failing in
            defer { failing = max(0, failing - 1) }
            return failing > 0
        }
        if !fails { done.withLock { $0.formUnion(dates) } }
    }

    func claim(job: String, plannedDate: Date, logger: Logger) async -> (any JobClaim)? {
        let claims = claimed.withLock { claims in
            claims[plannedDate, default: 0] += 1
            return claims[plannedDate]!
        }
        return lost[plannedDate] != nil && claims == 1 ? nil : LocalJobClaim()
    }

    func abandonedDates(job: String, before date: Date, logger: Logger) async -> [Date] {
        let claims = claimed.withLock { $0 }
        let done = done.withLock { $0 }
        return lost.filter {
            $0.value <= date && $0.key < date && claims[$0.key, default: 0] == 1 && !done.contains($0.key)
        }
        .keys.sorted()
    }
}

/// Dates whose runs another replica abandoned (its claim lost mid-run) follow the job's catch-up policy on the
/// replicas that go on.
@Suite struct AbandonedDateTests {
    /// Runs one job every 10 s for 45 s (dates 10 to 40) with the coordinator above (date 10 lost, reported from
    /// date 30 on); returns the planned dates run, in order, as seconds since the clock's start.
    private func datesRun(_ options: JobOptions, trace: Trace = Trace()) async throws -> [Double] {
        let clock = VirtualClock()
        let runs = Trace()
        try await clock.run {
            let coordinator = DeadReplicaCoordinator(lost: wallDate(10), abandonedFrom: wallDate(30), trace: trace)
            let scheduler = JobScheduler(
                coordinator: coordinator, logger: Logger(label: "test"), wallClock: clock.wallDate, clock: clock)
            let schedule = JobSchedule.plan(try Plan.every(.seconds(10), anchor: wallDate(0)))
            try scheduler.register("report", schedule, options: options) { context in
                runs.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await run(scheduler, on: clock, for: .seconds(45))
        }
        return runs.all.compactMap(Double.init)
    }

    @Test func anAtLeastOnceJobRunsAnAbandonedDateOnceBeforeItsNextDate() async throws {
        let trace = Trace()
        let dates = try await datesRun(JobOptions(catchUp: .each(within: .seconds(60))), trace: trace)
        // Date 10 was refused (another replica held it), then run again at 30, before 30; never a third time.
        #expect(dates == [20, 10, 30, 40])
        #expect(trace.all.contains("asked before 30.0"))
    }

    @Test func catchUpOnceRunsTheLatestAbandonedDateAndEachOnlyThoseWithinItsWindow() async throws {
        #expect(try await datesRun(JobOptions(catchUp: .once)) == [20, 10, 30, 40])
        // At date 30, date 10 is 20 s old: outside a 15 s window, so it is not run.
        #expect(try await datesRun(JobOptions(catchUp: .each(within: .seconds(15)))) == [20, 30, 40])
    }

    @Test func atMostOnceJobsAndCatchUpSkipNeverRunAnAbandonedDateNorAsk() async throws {
        let trace = Trace()
        #expect(try await datesRun(JobOptions(catchUp: .skip), trace: trace) == [20, 30, 40])
        #expect(
            try await datesRun(JobOptions(catchUp: .each(within: .seconds(60)), guarantee: .atMostOnce), trace: trace)
                == [20, 30, 40])
        #expect(trace.all.isEmpty)
    }

    /// Runs one job every 10 s for 55 s (dates 10 to 50) with `coordinator` under `catchUp`; returns the planned
    /// dates run, in order, as seconds since the clock's start, and the job's count of missed dates.
    private func datesRun(_ coordinator: LostLeasesCoordinator, _ catchUp: JobOptions.CatchUp) async throws
        -> (runs: [Double], missed: Int?)
    {
        let clock = VirtualClock()
        let runs = Trace()
        let missed = Mutex<Int?>(nil)
        try await clock.run {
            let scheduler = JobScheduler(
                coordinator: coordinator, logger: Logger(label: "test"), wallClock: clock.wallDate, clock: clock)
            let schedule = JobSchedule.plan(try Plan.every(.seconds(10), anchor: wallDate(0)))
            try scheduler.register("report", schedule, options: JobOptions(catchUp: catchUp)) { context in
                runs.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await run(scheduler, on: clock, for: .seconds(55))
            missed.withLock { $0 = scheduler.stats(for: "report")?.missed }
        }
        return (runs.all.compactMap(Double.init), missed.withLock { $0 })
    }

    /// Two dates lost with their replicas, whose leases ran out in the opposite order of the dates (date 20's first,
    /// reported from 30; date 10's from 40, its replica having renewed it longer): each runs once, the earlier one
    /// after the later one was already caught up.
    @Test func anEarlierDateAbandonedAfterALaterOneWasCaughtUpStillRuns() async throws {
        for catchUp in [JobOptions.CatchUp.each(within: .seconds(60)), .once] {
            let coordinator = LostLeasesCoordinator(lost: [wallDate(10): wallDate(40), wallDate(20): wallDate(30)])
            #expect(try await datesRun(coordinator, catchUp).runs == [20, 30, 10, 40, 50], "\(catchUp)")
        }
    }

    /// Three dates lost together (refused at first: other replicas held them; their leases all out at 35, so
    /// reported from date 40 on): `once` runs the latest and settles the two others with the coordinator, so that no
    /// replica (this one after a restart included) finds them again; `each(within:)` settles only those outside its
    /// window. The dates not run count as missed.
    @Test func theAbandonedDatesThePolicyDoesNotRunAreSettledAndCountedAsMissed() async throws {
        let cases: [(JobOptions.CatchUp, runs: [Double], settled: [[Double]])] = [
            (.once, [30, 40, 50], [[10, 20]]),
            (.each(within: .seconds(25)), [20, 30, 40, 50], [[10]]),
            (.each(within: .seconds(60)), [10, 20, 30, 40, 50], []),
        ]
        for (catchUp, expectedRuns, expectedSettled) in cases {
            let coordinator = LostLeasesCoordinator(lost: [
                wallDate(10): wallDate(35), wallDate(20): wallDate(35), wallDate(30): wallDate(35),
            ])
            let (runs, missed) = try await datesRun(coordinator, catchUp)
            let settled = coordinator.settled.withLock { $0 }.map { $0.map { $0.timeIntervalSince(wallDate(0)) } }
            #expect(runs == expectedRuns, "\(catchUp)")
            #expect(settled == expectedSettled, "\(catchUp)")
            #expect(missed == expectedSettled.joined().count, "\(catchUp)")
        }
    }

    /// A settle the coordinator could not carry out (its database did not answer) is tried again before the next
    /// date, while the dates are still reported; they are counted as missed once, and not run.
    @Test func aSettleThatFailedIsTriedAgainBeforeTheNextDate() async throws {
        let coordinator = LostLeasesCoordinator(
            lost: [wallDate(10): wallDate(35), wallDate(20): wallDate(35), wallDate(30): wallDate(35)],
            failingSettles: 1)
        let (runs, missed) = try await datesRun(coordinator, .once)
        let settled = coordinator.settled.withLock { $0 }.map { $0.map { $0.timeIntervalSince(wallDate(0)) } }
        #expect(runs == [30, 40, 50])
        // Before date 40 (failed), again before date 50.
        #expect(settled == [[10, 20], [10, 20]])
        #expect(missed == 2)
    }
}
