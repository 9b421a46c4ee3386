import Dispatch
import Synchronization
import Tempo
import Testing

/// The few tests that run on the machine's real clocks. They assert only what holds on a loaded 2-core
/// machine: ticks are never early, and they arrive within generous bounds.
@Suite struct RealTimeTests {
    @Test(arguments: TimerClock.allCases)
    func eachClockReallyFiresAndNeverEarly(clock: TimerClock) throws {
        let done = DispatchSemaphore(value: 0)
        let early = Atomic<Int>(0)
        let scheduler = SystemScheduler.shared
        let started = scheduler.now(clock)
        // Burst, so that a loaded machine that wakes late still delivers all five slots (coalescing would fold them).
        let timer = try TempoTimer(.every(.milliseconds(20), repeats: .times(5), latePolicy: .burst, clock: clock)) {
            tick in
            if scheduler.now(clock) < tick.due { early.add(1, ordering: .relaxed) }
            if tick.index == 5 { done.signal() }
        }
        timer.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let elapsed = scheduler.now(clock) - started
        #expect(elapsed >= .milliseconds(100))
        #expect(early.load(ordering: .relaxed) == 0)
        #expect(timer.state == .finished)
        #expect(timer.fireCount == 5)
    }

    @Test func immediateDeliveryFiresOnTheDriverThread() throws {
        let done = DispatchSemaphore(value: 0)
        try TempoTimer(.after(.milliseconds(5), delivery: .immediate)) { tick in
            #expect(tick.lateness >= .zero)
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
    }

    @Test func aOneShotFiresExactlyOnce() throws {
        let fired = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let timer = try TempoTimer(.after(.milliseconds(2))) { _ in
            fired.add(1, ordering: .relaxed)
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        // A second tick would have to be armed: nothing is, and the timer has finished.
        #expect(timer.state == .finished)
        #expect(timer.timeUntilNextTick == nil)
        #expect(done.wait(timeout: .now() + .milliseconds(50)) == .timedOut)
        #expect(fired.load(ordering: .relaxed) == 1)
    }

    @Test func noRunBeginsAfterCancelReturnsFromAnotherThread() throws {
        for _ in 0..<40 {
            let entries = Atomic<Int>(0)
            let ticked = DispatchSemaphore(value: 0)
            let timer = try TempoTimer(.every(.microseconds(100), latePolicy: .burst)) { _ in
                if entries.add(1, ordering: .relaxed).newValue == 3 { ticked.signal() }
            }
            timer.start()
            #expect(ticked.wait(timeout: .now() + 10) == .success)
            timer.cancel()
            let atCancel = entries.load(ordering: .relaxed)
            // 10 ms is 100 more ticks had the cancel not held; a run that had begun may still count itself.
            _ = ticked.wait(timeout: .now() + .milliseconds(10))
            #expect(entries.load(ordering: .relaxed) - atCancel <= 1)
        }
    }

    @Test func startAndCancelRaceFromManyThreadsWithoutTrapping() throws {
        let timer = try TempoTimer(.every(.microseconds(50))) { _ in }
        DispatchQueue.concurrentPerform(iterations: 2_000) { i in
            switch i % 6 {
            case 0: timer.start()
            case 1: timer.pause()
            case 2: timer.resume()
            case 3: timer.cancel()
            case 4: timer.fire()
            default: try? timer.reset(interval: .microseconds(50 + i % 7))
            }
        }
        timer.cancel()
        #expect(timer.state == .cancelled)
    }
}
