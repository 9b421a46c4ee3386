import Dispatch
import Synchronization
import TempoLocks
import Testing

@testable import Tempo

/// A clock's deadlines live in one shard per processor, each with its own lock; these check that a wake still runs
/// the due actions of every shard in deadline order (equal deadlines in the order they were scheduled, whichever
/// shards hold them), that a cancel from any thread reaches the action's shard, and that no deadline scheduled from
/// many threads at once is lost.
@Suite struct ClockDriverShardTests {
    @Test func aWakeRunsTheShardsDueActionsMergedByDeadlineThenByScheduleOrder() {
        let log = TempoMutex<[String]>([])
        let context = DriverContext(index: 0)
        func add(_ name: String, id: UInt64, _ deadline: Int64) {
            context.due.append((id, .action { log.withLock { $0.append(name) } }))
            context.dueDeadlines.append(deadline)
        }
        // Two shards' runs, each in deadline order (FIFO among equals), as `CompactDeadlineQueue.popDue` leaves them;
        // ids are numbers in scheduling order, so b30 (id 2) was scheduled before a30 (id 5).
        context.runStarts = [0, 3]
        add("a10", id: 1, 10)
        add("a30", id: 5, 30)
        add("a30'", id: 6, 30)
        add("b20", id: 3, 20)
        add("b30", id: 2, 30)
        add("b40", id: 4, 40)
        context.mergeDueRuns()
        for (_, work) in context.due { work.run() }
        #expect(log.withLock { $0 } == ["a10", "b20", "b30", "a30", "a30'", "b40"])
        #expect(context.dueDeadlines.isEmpty && context.runStarts.isEmpty)
    }

    @Test func equalDeadlinesScheduledOneAfterAnotherFromManyThreadsRunInThatOrder() {
        let scheduler = SystemScheduler()
        let order = TempoMutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let threads = 8
        let deadline = scheduler.now(.monotonic) + .milliseconds(200)
        // One thread after another (each joined before the next starts), so each `schedule` happens after the
        // previous one; new threads take consecutive ordinals, so they schedule on different shards.
        for thread in 0..<threads {
            Thread.run(1) { _ in
                _ = scheduler.schedule(at: deadline, leeway: .zero, clock: .monotonic) {
                    let count = order.withLock { order in
                        order.append(thread)
                        return order.count
                    }
                    if count == threads { done.signal() }
                }
            }
        }
        #expect(done.wait(timeout: .now() + .seconds(30)) == .success, "a scheduled action never ran")
        #expect(order.withLock { $0 } == Array(0..<threads))
    }

    @Test func actionsScheduledAndCancelledFromManyThreadsRunOnceNeverEarlyAndNoneIsLost() {
        let scheduler = SystemScheduler()
        #expect(scheduler.driver(for: .monotonic).shardCount >= 2)
        let threads = 8
        let perThread = 60
        let ran = TempoMutex<[Int: Int]>([:])
        let early = Atomic<Int>(0)
        let pending = TempoMutex<Set<Int>>(Set(0..<threads * perThread))
        let allRan = DispatchSemaphore(value: 0)
        let base = scheduler.now(.monotonic) + .milliseconds(100)
        // Each thread schedules its own actions (on its shard) and cancels every third action of the next thread's
        // (on another shard, usually), while the clock already runs the earliest ones.
        let handles = TempoMutex<[Int: ScheduledAction]>([:])
        let cancelledInTime = TempoMutex<Set<Int>>([])
        Thread.run(threads) { thread in
            for index in 0..<perThread {
                let key = thread * perThread + index
                let deadline = base + .microseconds(((key * 7_919) % 40) * 500)
                let handle = scheduler.schedule(at: deadline, leeway: .zero, clock: .monotonic) {
                    if scheduler.now(.monotonic) < deadline { early.add(1, ordering: .relaxed) }
                    ran.withLock { $0[key, default: 0] += 1 }
                    let left = pending.withLock { pending in
                        pending.remove(key)
                        return pending.count
                    }
                    if left == 0 { allRan.signal() }
                }
                handles.withLock { $0[key] = handle }
            }
            let victim = (thread + 1) % threads
            for index in stride(from: 0, to: perThread, by: 3) {
                let key = victim * perThread + index
                guard let handle = handles.withLock({ $0[key] }) else { continue }
                scheduler.cancel(handle)
                if scheduler.now(.monotonic) < base {
                    cancelledInTime.withLock { _ = $0.insert(key) }
                }
                let left = pending.withLock { pending in
                    pending.remove(key)
                    return pending.count
                }
                if left == 0 { allRan.signal() }
            }
        }
        #expect(allRan.wait(timeout: .now() + .seconds(30)) == .success, "a scheduled action never ran")
        #expect(early.load(ordering: .relaxed) == 0)
        let runs = ran.withLock { $0 }
        #expect(runs.values.allSatisfy { $0 == 1 }, "an action ran more than once")
        for key in cancelledInTime.withLock({ $0 }) {
            #expect(runs[key] == nil, "action \(key) ran after a cancel that returned before its deadline")
        }
        #expect(scheduler.pendingCount(on: .monotonic) == 0)
    }

    @Test func startThreadsStartsTheDriverOfTheGivenClocksBeforeAnythingIsScheduled() {
        let scheduler = SystemScheduler()
        #expect(!scheduler.driver(for: .monotonic).hasStartedThreads)
        scheduler.startThreads(for: [.monotonic])
        #expect(scheduler.driver(for: .monotonic).hasStartedThreads)
        #expect(!scheduler.driver(for: .wall).hasStartedThreads)
        let fired = DispatchSemaphore(value: 0)
        _ = scheduler.schedule(at: scheduler.now(.monotonic) + .milliseconds(1), leeway: .zero, clock: .monotonic) {
            fired.signal()
        }
        #expect(fired.wait(timeout: .now() + .seconds(10)) == .success)
    }
}
