import Foundation
import TempoJobs
import TempoPlans
import TempoTesting
import Testing

/// Each schedule runs its dates on virtual time, on time.
@Suite struct ScheduleTests {
    @Test func fixedRateRunsOneIntervalApartFromTheStartOnTime() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("tick", .every(.seconds(10))) { context in
                trace.append(
                    "t=\(clock.seconds) date=\(context.plannedDate == wallDate(clock.seconds)) late=\(context.lateness)"
                )
            }
            try await run(scheduler, on: clock, for: .seconds(35))
        }
        #expect(
            trace.all == [
                "t=10.0 date=true late=0.0 seconds", "t=20.0 date=true late=0.0 seconds",
                "t=30.0 date=true late=0.0 seconds",
            ])
    }

    @Test func fixedDelayStartsTheNextRunAnIntervalAfterThePreviousEnded() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("delay", .fixedDelay(.seconds(10))) { _ in
                trace.append("start \(clock.seconds)")
                try await clock.sleep(for: .seconds(5))
            }
            try await run(scheduler, on: clock, for: .seconds(45))
        }
        #expect(trace.all == ["start 10.0", "start 25.0", "start 40.0"])
    }

    @Test func cronTextRunsAtItsDatesInItsTimeZone() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            let utc = try #require(TimeZone(identifier: "UTC"))
            try scheduler.register("minutely", .cron("* * * * *", in: utc)) { context in
                trace.append("t=\(clock.seconds) date=\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await run(scheduler, on: clock, for: .seconds(150))
        }
        #expect(trace.all == ["t=60.0 date=60.0", "t=120.0 date=120.0"])
    }

    @Test func aPlanRunsAtItsDates() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            let plan = try Plan.dates([wallDate(7), wallDate(19)])
            try scheduler.register("plan", .plan(plan)) { _ in trace.append("t=\(clock.seconds)") }
            try await run(scheduler, on: clock, for: .seconds(30))
            #expect(scheduler.stats(for: "plan")?.isStopped == true)
        }
        #expect(trace.all == ["t=7.0", "t=19.0"])
    }

    @Test func aDateRunsOnceThenTheJobStops() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("once", .at(wallDate(5))) { _ in trace.append("t=\(clock.seconds)") }
            try await run(scheduler, on: clock, for: .seconds(20))
            let stats = try #require(scheduler.stats(for: "once"))
            #expect(stats.started == 1 && stats.isStopped)
        }
        #expect(trace.all == ["t=5.0"])
    }

    @Test func theContextCarriesTheJobsMetadataAndAttempt() async throws {
        let clock = VirtualClock()
        let log = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock, log: log)
            try scheduler.register("meta", .every(.seconds(10))) { context in
                #expect(context.name == "meta" && context.attempt == 1)
                context.logger.info("hello")
            }
            try await run(scheduler, on: clock, for: .seconds(15))
        }
        let hello = try #require(log.all.first { $0.contains("hello") })
        #expect(hello.contains("job=meta") && hello.contains("job.attempt=1"))
        #expect(hello.contains("job.date=\(wallDate(10).timeIntervalSince1970)"))
    }

    @Test func aJobRegisteredWhileRunningStartsAtOnce() async throws {
        let clock = VirtualClock()
        let trace = Trace()
        try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await scheduler.run() }
                await settle(clock)
                try await clock.sleep(for: .seconds(3))
                try scheduler.register("late", .every(.seconds(10))) { _ in trace.append("t=\(clock.seconds)")
                }
                await settle(clock)
                try await clock.sleep(for: .seconds(25))
                scheduler.triggerGracefulShutdown()
                try await group.waitForAll()
            }
        }
        #expect(trace.all == ["t=13.0", "t=23.0"])
    }

    @Test func aSubMicrosecondGridRunsEachDateOnceWithNothingMissed() async throws {
        // 0.3 s steps from 2026 are not whole in `Date`'s binary seconds: a plan's next date, rounded to a `Date`,
        // may fall at or before the date it was asked after.
        let clock = VirtualClock()
        let dates = Trace()
        let stats = try await clock.run {
            let scheduler = makeScheduler(on: clock)
            try scheduler.register("fast", .every(.milliseconds(300))) { context in
                dates.append("\(context.plannedDate.timeIntervalSince1970)")
            }
            try await run(scheduler, on: clock, for: .milliseconds(30_050))
            return try #require(scheduler.stats(for: "fast"))
        }
        let seen = dates.all.compactMap(Double.init)
        #expect(seen.count == 100 && zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
        #expect(stats.missed == 0 && stats.skipped == 0)
    }
}
