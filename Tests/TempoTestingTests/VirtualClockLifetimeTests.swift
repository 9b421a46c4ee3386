import Tempo
import TempoLocks
import TempoTesting
import Testing

/// A dropped `VirtualClock` releases what was scheduled on it: a running timer keeps no cycle with its clock.
@Suite struct VirtualClockLifetimeTests {
    private final class Captured: Sendable {}

    private final class Counter: Sendable {
        private let count = TempoMutex(0)
        var value: Int { count.withLock { $0 } }
        func increment() { count.withLock { $0 += 1 } }
    }

    // @unchecked Sendable: only read after the objects' scope ended, on the test's thread.
    private struct Weak: @unchecked Sendable {
        weak var clock: VirtualClock?
        weak var timer: TempoTimer?
        weak var ticker: SharedTicker?
        weak var countdown: Countdown?
        weak var captured: Captured?

        var survivors: [String] {
            [
                ("clock", clock as AnyObject?), ("timer", timer), ("ticker", ticker), ("countdown", countdown),
                ("captured", captured),
            ]
            .compactMap { $0.1 == nil ? nil : $0.0 }
        }
    }

    /// Starts a repeating timer, a ticker with a subscriber and a countdown on a fresh clock, advances a little
    /// (each has a pending deadline), and drops everything.
    private func runAndDrop() throws -> Weak {
        var weak = Weak()
        let clock = VirtualClock()
        let captured = Captured()
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in withExtendedLifetime(captured) {} }
        timer.start()
        let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
        let subscription = try ticker.subscribe { _ in withExtendedLifetime(captured) {} }
        let countdown = try Countdown(duration: .seconds(60), scheduler: clock) { _ in
        } onFinish: {
        }
        countdown.start()
        clock.advance(by: .milliseconds(1500))
        #expect(clock.pendingCount >= 3)
        withExtendedLifetime(subscription) {}
        weak.clock = clock
        weak.timer = timer
        weak.ticker = ticker
        weak.countdown = countdown
        weak.captured = captured
        return weak
    }

    @Test func droppingTheClockFreesTimersStillRunningOnItAndWhatTheirHandlersCapture() throws {
        let weak = try runAndDrop()
        #expect(weak.survivors == [])
    }

    @Test func aTimerTheTestStillHoldsOutlivesItsDroppedClockFrozenAndIsFreedWhenReleased() throws {
        weak var weakClock: VirtualClock?
        weak var weakTimer: TempoTimer?
        var timer: TempoTimer? = try {
            let clock = VirtualClock()
            weakClock = clock
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock)
            timer.start()
            clock.advance(by: .milliseconds(400))
            return timer
        }()
        weakTimer = timer
        #expect(weakClock == nil)
        // The clock's time is frozen where it was dropped; nothing is pending, and re-arming keeps nothing.
        #expect(timer?.timeUntilNextTick == .milliseconds(600))
        timer?.cancel()
        timer?.start()
        #expect(timer?.timeUntilNextTick == .seconds(1))
        timer = nil
        #expect(weakTimer == nil)
    }

    @Test func aClockKeptByTheTestKeepsItsRunningTimersAlive() throws {
        let clock = VirtualClock()
        weak var weakTimer: TempoTimer?
        let ticks = Counter()
        do {
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in ticks.increment() }
            timer.start()
            weakTimer = timer
        }
        #expect(weakTimer != nil)
        clock.advance(by: .milliseconds(999))
        #expect(ticks.value == 0)
        clock.advance(by: .milliseconds(1))
        #expect(ticks.value == 1)
        weakTimer?.cancel()
        #expect(weakTimer == nil)
    }
}
