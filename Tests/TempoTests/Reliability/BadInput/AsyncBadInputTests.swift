import Tempo
import TempoTesting
import Testing

/// The async entry points' bad input: `withTimeout` and `TempoClock.sleep` validate before they suspend.
@Suite struct AsyncBadInputTests {
    @Test(arguments: BadInput.badIntervals.filter { $0 <= .zero || $0 > TempoError.maximumDuration })
    func withTimeoutRejectsABadTimeoutNamingIt(timeout: Duration) async {
        await #expect {
            _ = try await withTimeout(after: timeout, clock: ContinuousClock()) { 1 }
        } throws: { error in
            (error as? TempoError)?.code == .invalidInterval
                && (error as? TempoError)?.value == timeout.exactDescription
        }
    }

    @Test(arguments: BadInput.badLeeways)
    func withTimeoutAndSleepRejectABadLeewayNamingIt(leeway: Duration) async {
        await #expect {
            _ = try await withTimeout(after: .seconds(1), leeway: leeway, clock: ContinuousClock()) { 1 }
        } throws: { error in
            (error as? TempoError)?.code == .invalidLeeway && (error as? TempoError)?.value == leeway.exactDescription
        }
        let clock = TempoClock(scheduler: VirtualClock())
        await #expect {
            try await clock.sleep(until: clock.now + .seconds(1), tolerance: leeway)
        } throws: { error in
            (error as? TempoError)?.code == .invalidLeeway
        }
    }

    @Test func aTimeoutThatRunsOutThrowsTimedOutNamingTheTimeout() async {
        let clock = TempoClock(scheduler: VirtualClock())
        await #expect {
            _ = try await withTimeout(after: .nanoseconds(1), clock: TempoClock.monotonic) {
                try await clock.sleep(until: clock.now + .seconds(1))
            }
        } throws: { error in
            (error as? TimeoutError)?.timeout == .nanoseconds(1)
        }
    }
}
