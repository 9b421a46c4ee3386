import Tempo
import TempoTesting
import Testing

@Suite struct TimeoutTests {
    @Test func anOperationStillRunningAtTheDeadlineIsCancelledAndTimesOut() async throws {
        let clock = VirtualClock()
        let operationCancelled = Flag()
        let call = Task {
            try await withTimeout(after: .seconds(2), clock: clock) {
                do {
                    try await clock.sleep(for: .seconds(5))
                } catch {
                    operationCancelled.set()
                    throw error
                }
                return 5
            }
        }
        try #require(await clock.waitForPending(2))
        clock.advance(by: .milliseconds(1999))
        #expect(clock.pendingCount == 2)
        clock.advance(by: .milliseconds(1))
        await #expect { try await call.value } throws: { error in
            (error as? TimeoutError)?.timeout == .seconds(2)
        }
        #expect(operationCancelled.isSet)
        #expect(clock.pendingCount == 0)
    }

    @Test func anOperationThatFinishesInTimeReturnsItsValueAndDisarmsTheDeadline() async throws {
        let clock = VirtualClock()
        let call = Task {
            try await withTimeout(after: .seconds(2), clock: clock) {
                try await clock.sleep(for: .seconds(1))
                return "done"
            }
        }
        try #require(await clock.waitForPending(2))
        clock.advance(by: .seconds(1))
        #expect(try await call.value == "done")
        #expect(clock.pendingCount == 0)
    }

    @Test func theOperationsOwnErrorIsRethrown() async {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await withTimeout(after: .seconds(60)) { () async throws -> Int in throw Refused() }
        }
    }

    @Test func cancellingTheCallerCancelsTheOperationAndDoesNotReportATimeout() async throws {
        let clock = VirtualClock()
        let call = Task {
            try await withTimeout(after: .seconds(2), clock: clock) { try await clock.sleep(for: .seconds(5)) }
        }
        try #require(await clock.waitForPending(2))
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(clock.pendingCount == 0)
    }

    @Test func aTimeoutThatIsNotPositiveThrowsInvalidIntervalWithoutRunningTheOperation() async {
        let ran = Flag()
        await #expect {
            try await withTimeout(after: .zero, clock: VirtualClock()) { ran.set() }
        } throws: { ($0 as? TempoError)?.code == .invalidInterval }
        #expect(!ran.isSet)
    }
}
