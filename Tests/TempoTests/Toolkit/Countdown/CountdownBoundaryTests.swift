import Dispatch
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// A countdown reports the boundary each tick stands for (59 s, 58 s, ... 1 s), on virtual and on real time,
/// and takes the same durations as every other Tempo interval.
@Suite struct CountdownBoundaryTests {
    private final class Log: Sendable {
        private let values = TempoMutex<[Duration]>([])
        private let finishes = TempoMutex(0)
        let finished = DispatchSemaphore(value: 0)
        var remaining: [Duration] { values.withLock { $0 } }
        var finishCount: Int { finishes.withLock { $0 } }
        func tick(_ left: Duration) { values.withLock { $0.append(left) } }
        func finish() {
            finishes.withLock { $0 += 1 }
            finished.signal()
        }
    }

    @Test func aTwoMinuteCountdownShows119SecondsFirstAnd1SecondLastThenFinishes() throws {
        let clock = VirtualClock()
        let log = Log()
        let countdown = try Countdown(duration: .seconds(120), scheduler: clock, onTick: log.tick, onFinish: log.finish)
        countdown.start()
        clock.advance(by: .milliseconds(999))
        #expect(log.remaining.isEmpty)
        clock.advance(by: .milliseconds(1))
        #expect(log.remaining == [.seconds(119)])
        clock.advance(by: .seconds(118))
        #expect(log.remaining.count == 119)
        #expect(log.remaining.last == .seconds(1))
        #expect(log.remaining == (1...119).reversed().map { Duration.seconds($0) })
        #expect(log.finishCount == 0)
        clock.advance(by: .seconds(1))
        #expect(log.finishCount == 1)
        #expect(log.remaining.count == 119)
    }

    /// On the real clock a tick's handler runs a little after its boundary, so `deadline - now` is a few µs
    /// below it; the countdown must still report the boundary (a whole number of periods), never 499.99 ms.
    /// On a loaded machine a tick may come so late that it stands for a later boundary, or be coalesced, so
    /// only what holds then is asserted: every value is a whole number of periods between one period and
    /// the duration less one, values strictly decrease, zero is never reported, and the finish comes once.
    @Test func onTheRealClockEveryTickReportsAWholeNumberOfPeriodsAndNeverZero() throws {
        let log = Log()
        let period = Duration.milliseconds(100)
        let countdown = try Countdown(
            duration: .milliseconds(600), every: period, clock: .monotonic, onTick: log.tick, onFinish: log.finish)
        countdown.start()
        #expect(log.finished.wait(timeout: .now() + .seconds(30)) == .success)
        let values = log.remaining
        #expect(!values.isEmpty)
        for value in values {
            #expect(value >= period && value <= .milliseconds(500), "\(value)")
            #expect(value.attoseconds % period.attoseconds == 0, "\(value) is not a whole number of periods")
        }
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 > $1 }, "\(values)")
        #expect(log.finishCount == 1)
        withExtendedLifetime(countdown) {}
    }

    @Test(arguments: [Duration(attoseconds: 1), Duration(attoseconds: 999_999_999), .nanoseconds(1) / 2])
    func aSubNanosecondDurationIsRejectedLikeATimerInterval(duration: Duration) throws {
        let clock = VirtualClock()
        let timerError = #expect(throws: TempoError.self) {
            try TempoTimer(.every(duration), scheduler: clock)
        }
        let countdownError = #expect(throws: TempoError.self) {
            try Countdown(duration: duration, scheduler: clock) { _ in
            } onFinish: {
            }
        }
        #expect(timerError?.code == .invalidInterval)
        #expect(countdownError?.code == .invalidInterval)
        #expect(countdownError?.value == duration.exactDescription)
        #expect(countdownError?.message.contains("at least 1 nanosecond") == true)

        let countdown = try Countdown(duration: .seconds(5), scheduler: clock) { _ in
        } onFinish: {
        }
        countdown.start()
        let addError = #expect(throws: TempoError.self) { try countdown.add(duration) }
        #expect(addError?.code == .invalidInterval)
        #expect(countdown.remaining == .seconds(5))
    }

    @Test func aDurationOfExactlyOneNanosecondIsAccepted() throws {
        let clock = VirtualClock()
        let log = Log()
        let countdown = try Countdown(
            duration: .nanoseconds(1), scheduler: clock, onTick: log.tick, onFinish: log.finish)
        countdown.start()
        clock.advance(by: .nanoseconds(1))
        #expect(log.finishCount == 1)
        #expect(log.remaining.isEmpty)
    }
}
