import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

@Suite struct ThrottlerTests {
    /// Replays the documented timeline (interval 1 s; calls at 0, 0.3, 0.6, 1.5, 3.0 s) and returns the runs
    /// as (milliseconds since start, value).
    private func replay(_ edge: Throttler<Int>.Edge) throws -> (runs: [String], outcomes: [Throttler<Int>.Outcome]) {
        let clock = VirtualClock()
        let runs = RunLog<String>()
        let throttler = try Throttler<Int>(every: .seconds(1), edge: edge, scheduler: clock) { value in
            let now = clock.now(.monotonic).offset.components
            runs.record("\(now.seconds * 1000 + now.attoseconds / 1_000_000_000_000_000):\(value)")
        }
        var outcomes: [Throttler<Int>.Outcome] = []
        var at = 0
        for call in [0, 300, 600, 1500, 3000] {
            clock.advance(by: .milliseconds(call - at))
            at = call
            outcomes.append(throttler.call(call))
        }
        clock.advance(by: .seconds(10))
        return (runs.all, outcomes)
    }

    @Test func leadingRunsTheFirstCallOfAWindowAndDropsTheRest() throws {
        let result = try replay(.leading)
        #expect(result.runs == ["0:0", "1500:1500", "3000:3000"])
        #expect(result.outcomes == [.ranNow, .dropped, .dropped, .ranNow, .ranNow])
    }

    @Test func trailingRunsTheLastCallOfEachWindowAtItsEnd() throws {
        let result = try replay(.trailing)
        #expect(result.runs == ["1000:600", "2000:1500", "4000:3000"])
        #expect(result.outcomes == [.deferred, .deferred, .deferred, .deferred, .deferred])
    }

    @Test func bothRunsTheFirstCallAtOnceAndTheLastAtTheWindowEnd() throws {
        let result = try replay(.both)
        #expect(result.runs == ["0:0", "1000:600", "2000:1500", "3000:3000"])
        #expect(result.outcomes == [.ranNow, .deferred, .deferred, .deferred, .ranNow])
    }

    @Test func trailingRunWaitsForTheFullWindowAndNotLonger() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let throttler = try Throttler<Int>(every: .seconds(1), edge: .both, scheduler: clock, action: log.record)
        throttler.call(1)
        #expect(log.all == [1])  // the leading run happened before call returned
        throttler.call(2)
        clock.advance(by: .milliseconds(999))
        #expect(log.all == [1])
        clock.advance(by: .milliseconds(1))
        #expect(log.all == [1, 2])
        #expect(throttler.isWindowOpen)
        clock.advance(by: .seconds(1))
        #expect(!throttler.isWindowOpen)
        #expect(clock.pendingCount == 0)
    }

    @Test func cancelDropsTheTrailingRunAndClosesTheWindow() throws {
        let clock = VirtualClock()
        let log = RunLog<Int>()
        let throttler = try Throttler<Int>(every: .seconds(1), edge: .both, scheduler: clock, action: log.record)
        throttler.call(1)
        throttler.call(2)
        #expect(throttler.cancel())
        #expect(!throttler.isWindowOpen)
        #expect(clock.pendingCount == 0)
        clock.advance(by: .seconds(2))
        #expect(log.all == [1])
        #expect(throttler.call(3) == .ranNow)
        #expect(log.all == [1, 3])
    }

    @Test func voidThrottlerAndInvalidInterval() throws {
        let clock = VirtualClock()
        let runs = TempoMutex(0)
        let throttler = try Throttler(every: .seconds(1), edge: .leading, scheduler: clock) {
            runs.withLock { $0 += 1 }
        }
        for _ in 0..<10 { throttler.call() }
        #expect(runs.withLock { $0 } == 1)
        #expect(throws: TempoError.self) { try Throttler<Int>(every: .zero, scheduler: clock) { _ in } }
    }

    @Test func concurrentCallsRunAtMostOncePerWindow() throws {
        let clock = VirtualClock()
        let times = RunLog<TimerInstant>()
        let throttler = try Throttler<Int>(
            every: .milliseconds(100), edge: .both, delivery: .immediate, scheduler: clock
        ) { _ in times.record(clock.now(.monotonic)) }
        Thread.run(4) { worker in
            for round in 0..<300 {
                if worker == 0 {
                    clock.advance(by: .milliseconds(7))
                } else {
                    throttler.call(round)
                }
            }
        }
        clock.advance(by: .seconds(1))
        // 3.1 s of virtual time: each run opens a 100 ms window, so at most 31 windows plus the first run.
        // (Run times are not compared: the clock moves on another thread while a leading run starts.)
        #expect(times.all.count <= 32)
        #expect(!throttler.isWindowOpen)
        #expect(clock.pendingCount == 0)
    }

    @Test func articleExampleRunsAtOnceAndAtTheEnd() throws {
        let clock = VirtualClock()
        let runs = TempoMutex<[Int]>([])
        let throttler = try Throttler<Int>(every: .seconds(1), edge: .both, scheduler: clock) { value in
            runs.withLock { $0.append(value) }
        }
        for value in 1...5 { throttler.call(value) }
        #expect(runs.withLock { $0 } == [1])
        clock.advance(by: .milliseconds(999))
        #expect(runs.withLock { $0 } == [1])
        clock.advance(by: .milliseconds(1))
        #expect(runs.withLock { $0 } == [1, 5])
    }
}
