import Dispatch
import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

@Suite struct TimerDeliveryTests {
    @Test func observersAreCalledInTheOrderAddedAndCanBeRemoved() throws {
        let clock = VirtualClock()
        let calls = TempoMutex<[String]>([])
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in calls.withLock { $0.append("main") } }
        let a = timer.addObserver { _ in calls.withLock { $0.append("a") } }
        timer.addObserver { _ in calls.withLock { $0.append("b") } }
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(calls.withLock { $0 } == ["main", "a", "b"])
        #expect(timer.removeObserver(a))
        #expect(!timer.removeObserver(a))
        clock.advance(by: .seconds(1))
        #expect(calls.withLock { $0 } == ["main", "a", "b", "main", "b"])
    }

    @Test func handlersRunOnTheGivenQueue() throws {
        let clock = VirtualClock()
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "custom")
        queue.setSpecific(key: key, value: "custom")
        let seen = TempoMutex<[String?]>([])
        let timer = try TempoTimer(.every(.seconds(1), delivery: .queue(queue)), scheduler: clock) { _ in
            seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
        }
        timer.start()
        clock.advance(by: .seconds(2))
        #expect(seen.withLock { $0 } == ["custom", "custom"])
    }

    @Test func aHandlerCanFireAnotherTimerOnTheSameQueue() throws {
        let clock = VirtualClock()
        let queue = DispatchQueue(label: "shared")
        let log = EventLog()
        let second = try TempoTimer(.every(.seconds(60), delivery: .queue(queue)), scheduler: clock) { tick in
            log.record("second manual=\(tick.isManual)")
        }
        let first = try TempoTimer(.every(.seconds(1), delivery: .queue(queue)), scheduler: clock) { _ in
            log.record("first")
            second.fire()
            log.record("first done")
        }
        first.start()
        clock.advance(by: .seconds(1))
        #expect(log.all == ["first", "first done", "second manual=true"])
    }

    @Test func defaultDeliveryIsAPrivateQueueNotTheCaller() throws {
        let clock = VirtualClock()
        let key = DispatchSpecificKey<String>()
        let caller = DispatchQueue(label: "caller")
        caller.setSpecific(key: key, value: "caller")
        let seen = TempoMutex<[String?]>([])
        let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock) { _ in
            seen.withLock { $0.append(DispatchQueue.getSpecific(key: key)) }
        }
        timer.start()
        caller.sync { _ = clock.advance(by: .seconds(1)) }
        #expect(seen.withLock { $0 } == [nil])
    }

    @Test func handlerRunsOfOneTimerNeverOverlapOnAConcurrentQueue() throws {
        let finished = DispatchSemaphore(value: 0)
        let running = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        let timer = try TempoTimer(
            .every(.microseconds(200), repeats: .times(300), latePolicy: .burst, delivery: .queue(.global()))
        ) { _ in
            if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
                overlaps.add(1, ordering: .relaxed)
            }
            for _ in 0..<2_000 { _ = done.load(ordering: .relaxed) }
            running.subtract(1, ordering: .sequentiallyConsistent)
            if done.add(1, ordering: .relaxed).newValue == 350 { finished.signal() }
        }
        timer.addObserver { _ in
            // Runs after the main handler of the same tick returned, and before the next tick's.
            if running.load(ordering: .sequentiallyConsistent) != 0 { overlaps.add(1, ordering: .relaxed) }
        }
        timer.start()
        for _ in 0..<50 { timer.fire() }
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(done.load(ordering: .relaxed) == 350)
        #expect(overlaps.load(ordering: .relaxed) == 0)
    }

    @Test func stateChangesAndTicksShareOneSerialOrder() throws {
        let clock = VirtualClock()
        let events = TempoMutex<[String]>([])
        let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock) { tick in
            events.withLock { $0.append("tick \(tick.index)") }
        }
        timer.onStateChange { state in events.withLock { $0.append("\(state)") } }
        timer.start()
        clock.advance(by: .seconds(1))
        #expect(events.withLock { $0 } == ["running", "tick 1", "finished"])
    }
}
