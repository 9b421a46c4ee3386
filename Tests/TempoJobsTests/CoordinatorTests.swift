import Foundation
import Logging
import Synchronization
import TempoJobs
import TempoTesting
import Testing

/// A coordinator that refuses every other date and records the claims it grants and releases.
private final class AlternatingCoordinator: JobCoordinator {
    let trace: Trace
    private let count = Mutex(0)

    init(trace: Trace) { self.trace = trace }

    func claim(job: String, plannedDate: Date, logger: Logger) async -> (any JobClaim)? {
        let number = count.withLock { count in
            count += 1
            return count
        }
        guard number % 2 == 1 else { return nil }
        return NumberedClaim(fencingToken: Int64(number), trace: trace)
    }
}

private struct NumberedClaim: JobClaim {
    let fencingToken: Int64
    let trace: Trace

    func isHeld() async -> Bool { fencingToken != 3 }

    func release(succeeded: Bool) async { trace.append("release \(fencingToken) \(succeeded)") }
}

/// The scheduler asks its coordinator before each run, and the body reaches the claim.
@Suite struct CoordinatorTests {
    @Test func refusedDatesDoNotRunAndCountAsClaimedElsewhereAndGrantedClaimsReachTheBody() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        let store = InMemoryJobStore()
        try await clock.run {
            let scheduler = JobScheduler(
                store: store, coordinator: AlternatingCoordinator(trace: trace), logger: Logger(label: "test"),
                wallClock: clock.wallDate, clock: clock)
            try scheduler.register("tick", .every(.seconds(10))) { context in
                trace.append("run \(clock.seconds) token \(context.claim.fencingToken) \(await context.claim.isHeld())")
            }
            try await run(scheduler, on: clock, for: .seconds(45))
            let stats = try #require(scheduler.stats(for: "tick"))
            #expect(stats.started == 2)
            #expect(stats.succeeded == 2)
            #expect(stats.claimedElsewhere == 2)
        }
        #expect(
            trace.all == [
                "run 10.0 token 1 true", "release 1 true", "run 30.0 token 3 false", "release 3 true",
            ])
        // The cursor is written only by the runs granted here (at least once: after the run).
        #expect(try await store.cursor(for: "tick")?.lastDate == wallDate(30))
    }

    @Test func theDefaultCoordinatorGrantsEveryDateWithTokenZero() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("tick", .every(.seconds(10))) { context in
                trace.append("token \(context.claim.fencingToken) \(await context.claim.isHeld())")
            }
            try await run(scheduler, on: clock, for: .seconds(25))
            #expect(scheduler.stats(for: "tick")?.claimedElsewhere == 0)
        }
        #expect(trace.all == ["token 0 true", "token 0 true"])
    }
}
