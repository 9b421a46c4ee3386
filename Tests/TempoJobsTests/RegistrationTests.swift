import Foundation
import TempoJobs
import TempoPlans
import TempoTesting
import Testing

/// Bad input at registration throws a typed error naming the value, and changes nothing.
@Suite struct RegistrationTests {
    private func rejection(
        _ name: String = "job",
        _ schedule: JobSchedule = .every(.seconds(1)),
        _ options: JobOptions = JobOptions()
    ) throws -> JobError {
        let scheduler = makeScheduler(on: VirtualClock())
        try scheduler.register("existing", .every(.seconds(1))) { _ in }
        do {
            try scheduler.register(name, schedule, options: options) { _ in }
        } catch {
            #expect(scheduler.jobNames == ["existing"])
            return error
        }
        Issue.record("registration of \(name) did not throw")
        return JobError(.emptyName, message: "")
    }

    @Test func anEmptyNameIsRejected() throws {
        #expect(try rejection("").code == .emptyName)
    }

    @Test func aDuplicateNameIsRejectedAndTheFirstJobKept() throws {
        let error = try rejection("existing")
        #expect(error.code == .duplicateName && error.job == "existing")
        #expect(error.description == "duplicateName: a job named \"existing\" is already registered")
    }

    @Test func invalidSchedulesNameTheValue() throws {
        let zero = try rejection("a", .every(.zero))
        #expect(zero.code == .invalidSchedule && zero.message.contains("0.0 seconds") && zero.message.contains("\"a\""))
        let delay = try rejection("b", .fixedDelay(.seconds(-1)))
        #expect(delay.code == .invalidSchedule && delay.message.contains("-1.0 seconds"))
        let cron = try rejection("c", .cron("0 0 32 * *", in: .gmt))
        #expect(cron.code == .invalidSchedule && cron.message.contains("32"))
        let date = try rejection("d", .at(Date(timeIntervalSince1970: 1e12)))
        #expect(date.code == .invalidSchedule)
    }

    @Test func aRetryPolicyWithNoAttemptsIsRejected() throws {
        let policy = RetryPolicy(attempts: 0, backoff: .constant(.seconds(1)))
        let error = try rejection("r", .every(.seconds(1)), JobOptions(failure: .retry(policy)))
        #expect(error.code == .invalidRetryPolicy && error.message.contains("got 0") && error.job == "r")
        let cap = RetryPolicy(attempts: 2, backoff: .exponential(initial: .seconds(2), cap: .seconds(1)))
        #expect(try rejection("r", .every(.seconds(1)), JobOptions(failure: .retry(cap))).code == .invalidRetryPolicy)
    }

    @Test func invalidOptionsNameTheValue() throws {
        let timeout = try rejection("t", .every(.seconds(1)), JobOptions(timeout: .zero))
        #expect(timeout.code == .invalidOptions && timeout.message.contains("timeout"))
        let limit = try rejection("l", .every(.seconds(1)), JobOptions(overlap: .concurrent(limit: 0)))
        #expect(limit.code == .invalidOptions && limit.message.contains("got 0"))
        let spread = try rejection("s", .every(.seconds(1)), JobOptions(spread: .seconds(-5)))
        #expect(spread.code == .invalidOptions && spread.message.contains("-5.0 seconds"))
        let window = try rejection("w", .every(.seconds(1)), JobOptions(catchUp: .each(within: .zero)))
        #expect(window.code == .invalidOptions)
    }

    @Test(arguments: [(Duration.seconds(-1), Duration.seconds(5)), (.seconds(30), .milliseconds(-2))])
    func aNegativeShutdownDelayIsRejectedByRunNamingTheValue(grace: Duration, abandon: Duration) async {
        let scheduler = makeScheduler(on: VirtualClock(), gracePeriod: grace, abandonAfter: abandon)
        await #expect {
            try await scheduler.run()
        } throws: { error in
            guard let error = error as? JobError, error.code == .invalidOptions else { return false }
            let (name, value) = grace < .zero ? ("gracePeriod", grace) : ("abandonAfter", abandon)
            return error.message.contains(name) && error.message.contains("\(value)")
        }
    }
}
