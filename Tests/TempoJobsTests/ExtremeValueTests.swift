import Foundation
import TempoJobs
import TempoTesting
import Testing

/// Every value registration accepts runs without a trap; the values that cannot run are typed errors naming them
/// (issue #41: each of these trapped with SIGILL before, at registration's error message, at a wait, or at SIGTERM).
@Suite struct ExtremeValueTests {
    private static let huge = Duration.seconds(Int64.max)

    private func register(_ schedule: JobSchedule, _ options: JobOptions = JobOptions()) -> JobError? {
        let scheduler = makeScheduler(on: VirtualClock())
        do {
            try scheduler.register("x", schedule, options: options) { _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test func aDateThatIsNotFiniteIsAnInvalidScheduleNamingIt() throws {
        let error = try #require(register(.at(Date(timeIntervalSince1970: .nan))))
        #expect(error.code == .invalidSchedule && error.message.contains("nan"))
        #expect("\(JobSchedule.at(Date(timeIntervalSince1970: .infinity)))".contains("inf"))
    }

    @Test func durationsPastAHundredYearsAreRejectedNamingTheValue() throws {
        let delay = try #require(register(.fixedDelay(Self.huge)))
        #expect(delay.code == .invalidSchedule && delay.message.contains("\(Self.huge)"))
        let timeout = try #require(register(.every(.seconds(1)), JobOptions(timeout: Self.huge)))
        #expect(timeout.code == .invalidOptions && timeout.message.contains("timeout"))
        let spread = try #require(register(.every(.seconds(1)), JobOptions(spread: Self.huge)))
        #expect(spread.code == .invalidOptions && spread.message.contains("spread"))
        let backoff = Backoff.exponential(initial: .seconds(1), cap: Self.huge)
        let retry = try #require(
            register(.every(.seconds(1)), JobOptions(failure: .retry(RetryPolicy(attempts: 3, backoff: backoff)))))
        #expect(retry.code == .invalidRetryPolicy && retry.message.contains("cap"))
        #expect(register(.every(.seconds(36_500 * 86_400))) == nil)
    }

    @Test func theFreeRetryRejectsACapPastAHundredYearsBeforeAnyAttempt() async throws {
        let attempts = Trace()
        await #expect {
            try await retry(
                attempts: 3, backoff: .exponential(initial: .seconds(1), multiplier: 1e6, cap: Self.huge),
                clock: VirtualClock()
            ) { _ in attempts.append("x") }
        } throws: { error in
            (error as? JobError)?.code == .invalidRetryPolicy
        }
        #expect(attempts.all.isEmpty)
    }

    @Test func aBackoffThatGrowsToItsHundredYearCapWaitsWithoutATrap() async throws {
        let clock = VirtualClock()
        let attempts = Trace()
        let backoff = Backoff.exponential(initial: .seconds(1), multiplier: 1e12, cap: .seconds(36_500 * 86_400))
        try await clock.run {
            _ = try? await retry(attempts: 3, backoff: backoff, clock: clock) { attempt in
                attempts.append("\(attempt) at \(clock.seconds)")
                throw Boom()
            }
        }
        #expect(attempts.all == ["1 at 0.0", "2 at 1.0", "3 at \(1.0 + 36_500 * 86_400)"])
    }

    @Test(arguments: [(huge, Duration.seconds(5)), (.seconds(30), huge)])
    func shutdownDelaysPastAHundredYearsAreRejectedByRun(grace: Duration, abandon: Duration) async {
        let scheduler = makeScheduler(on: VirtualClock(), gracePeriod: grace, abandonAfter: abandon)
        await #expect {
            try await scheduler.run()
        } throws: { error in
            guard let error = error as? JobError, error.code == .invalidOptions else { return false }
            return error.message.contains(grace == Self.huge ? "gracePeriod" : "abandonAfter")
        }
    }

    @Test func aCatchUpWindowOfInt64MaxSecondsRunsEveryMissedDate() async throws {
        let clock = VirtualClock()
        let store = InMemoryJobStore()
        let dates = Trace()
        let options = JobOptions(catchUp: .each(within: Self.huge))
        try await clock.run {
            let first = makeScheduler(on: clock, store: store)
            try first.register("w", .every(.seconds(10)), options: options) { _ in }
            try await run(first, on: clock, for: .seconds(15))
            try await clock.sleep(for: .seconds(30))
            let second = makeScheduler(on: clock, store: store)
            try second.register("w", .every(.seconds(10)), options: options) { context in
                dates.append("\(context.plannedDate.timeIntervalSince(wallDate(0)))")
            }
            try await run(second, on: clock, for: .seconds(1))
        }
        #expect(dates.all == ["20.0", "30.0", "40.0"])
    }
}
