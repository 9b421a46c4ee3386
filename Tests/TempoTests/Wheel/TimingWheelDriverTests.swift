import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct TimingWheelDriverTests {
    @Test func nothingWakesWhileNothingIsDue() throws {
        let scheduler = CountingScheduler()
        let log = ValueLog()
        let wheel = try TimingWheel(configuration: .immediate, scheduler: scheduler, handler: log)
        scheduler.clock.advance(by: .seconds(60))
        #expect(scheduler.schedules == 0)
        for value in UInt64(0)..<10_000 {
            try wheel.schedule(after: .seconds(3_600) + .microseconds(Int64(value)), value: value)
        }
        // One driver action for all of them; arming later timers touches only the table.
        #expect(scheduler.schedules == 1)
        scheduler.clock.advance(by: .seconds(5))
        #expect(scheduler.runs == 0)
        #expect(log.count == 0)
        scheduler.clock.advance(by: .seconds(3_600))
        #expect(log.values == Array(0..<10_000))
        // One wakeup per 1 ms tick that holds timers (10), plus a cascade per level at most: not one per tick.
        #expect(scheduler.runs <= 10 + 6)
        let runs = scheduler.runs
        scheduler.clock.advance(by: .seconds(3_600))
        #expect(scheduler.runs == runs)
        #expect(scheduler.clock.pendingCount == 0)
    }

    @Test func cancellingAndPushingLaterMakeNoSchedulerCalls() throws {
        let scheduler = CountingScheduler()
        let wheel = try TimingWheel(configuration: .immediate, scheduler: scheduler, handler: ValueLog())
        let anchor = try wheel.schedule(after: .seconds(1), value: 0)
        let (schedules, cancels) = (scheduler.schedules, scheduler.cancels)
        for value in UInt64(1)...1_000 {
            let handle = try wheel.schedule(after: .seconds(2), value: value)
            #expect(try wheel.reschedule(handle, after: .seconds(3)))
            #expect(wheel.cancel(handle))
        }
        #expect(try wheel.reschedule(anchor, after: .seconds(10)))
        #expect(scheduler.schedules == schedules)
        #expect(scheduler.cancels == cancels)
    }

    @Test func anEarlierDeadlineArmedFromAnotherThreadWakesTheDriverEarlier() async throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        try wheel.schedule(after: .seconds(3_600), value: 2)
        await Task.detached { _ = try? wheel.schedule(after: .milliseconds(250), value: 1) }.value
        clock.advance(by: .milliseconds(249))
        #expect(log.values == [])
        clock.advance(by: .milliseconds(1))
        #expect(log.values == [1])
        #expect(log.instants == [TimerInstant(offset: .milliseconds(250))])
    }

    @Test func armingFromManyThreadsFiresEveryTimerOnceInDeadlineOrder() throws {
        let clock = VirtualClock()
        let log = ValueLog(clock: clock)
        let wheel = try TimingWheel(configuration: .immediate, scheduler: clock, handler: log)
        let threads = 4
        let perThread = 2_000
        let handles = TempoMutex<[TimingWheel.Handle]>([])
        let group = DispatchGroup()
        for thread in 0..<threads {
            WheelThreads.detach(group: group) {
                var mine: [TimingWheel.Handle] = []
                for index in 0..<perThread {
                    let value = UInt64(thread * perThread + index)
                    // Distinct deadlines, interleaved across threads, some far and some near.
                    let deadline = TimerInstant(offset: .microseconds(Int64(value) * 1_000 + 1))
                    mine.append(try! wheel.schedule(at: deadline, value: value))
                    if index % 3 == 0, let victim = mine.popLast() { wheel.cancel(victim) }
                }
                handles.withLock { $0 += mine }
            }
        }
        group.wait()
        wheel._checkInvariants()
        let armed = handles.withLock { $0.count }
        #expect(wheel.count == armed)
        clock.runUntilIdle()
        let expected = (0..<UInt64(threads * perThread)).filter { ($0 % UInt64(perThread)) % 3 != 0 }
        #expect(log.values == expected)
        #expect(wheel.count == 0)
    }

    @Test func onTheSystemSchedulerTimersFireNeverEarly() throws {
        let log = ValueLog(clock: SystemScheduler.shared)
        let wheel = try TimingWheel(handler: log)
        let start = wheel.now
        let delays: [Duration] = [.milliseconds(5), .milliseconds(20), .milliseconds(40)]
        for (value, delay) in delays.enumerated() {
            try wheel.schedule(at: start + delay, value: UInt64(value))
        }
        let deadline = start + .seconds(120)  // catches a hang; a busy machine may delay the firings by seconds
        while log.count < delays.count, wheel.now < deadline {
            usleep(2_000)
        }
        #expect(log.values == [0, 1, 2])
        for (delay, firedAt) in zip(delays, log.instants) {
            #expect(firedAt >= start + delay)
            #expect(firedAt < start + delay + .seconds(120))
        }
    }
}

/// A plain thread, for concurrency tests that must not run on the cooperative pool.
enum WheelThreads {
    static func detach(group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        DispatchQueue.global().async {
            body()
            group.leave()
        }
    }
}
