import Dispatch
import TempoLocks
import Testing

@testable import Tempo

/// A driver thread runs the default-delivery mailboxes of one wake itself after the wake's due work: a lone one
/// directly, several as one batch in the delivery pool's ring that it runs too, waking one worker per
/// `DeliveryPool.lanesPerHelper` lanes (issue #31: leeway batching with the default delivery; issue #44: mass expiry
/// with no lock and no wakeup per timer).
@Suite struct DriverContextBatchTests {
    /// The order in which a pool ran its lanes.
    final class Log: Sendable {
        private let entries = TempoMutex<[Int]>([])
        func append(_ index: Int) { entries.withLock { $0.append(index) } }
        var indices: [Int] { entries.withLock { $0 } }
    }

    /// A lane that records its run.
    final class Lane: DeliveryLane {
        let index: Int
        let log: Log
        let done: DispatchSemaphore
        init(_ index: Int, log: Log, done: DispatchSemaphore) {
            self.index = index
            self.log = log
            self.done = done
        }
        func runDeliveries() {
            log.append(index)
            done.signal()
        }
    }

    @Test func aSecondLaneGathersTheWakesLanesInOneBatchInTheOrderTaken() {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let lanes = (0..<5).map { Lane($0, log: log, done: done) }
        let context = DriverContext(index: 0)
        #expect(!context.take(lanes[0]), "outside a wake's due work the caller submits the lane itself")
        context.acceptsMailbox = true
        #expect(context.take(lanes[0]))
        #expect((context.mailbox as? Lane)?.index == 0, "a lone lane is kept as the mailbox")
        #expect(context.deferredLanes.isEmpty)
        for lane in lanes.dropFirst() { #expect(context.take(lane)) }
        context.acceptsMailbox = false
        #expect(context.mailbox == nil, "the second lane moved the first into the batch, ahead of itself")
        #expect(context.deferredLanes.map { ($0 as! Lane).index } == [0, 1, 2, 3, 4])
        #expect(log.indices.isEmpty, "nothing reaches the pool before the due work ends")
    }

    @Test(.timeLimit(.minutes(1))) func aLoneLaneRunsOnTheDriverThreadAndTouchesNoPool() {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let pool = DeliveryPool(workers: 1)
        let context = DriverContext(index: 0)
        context.acceptsMailbox = true
        _ = context.take(Lane(7, log: log, done: done))
        context.acceptsMailbox = false
        context.runTaken(on: pool)
        #expect(log.indices == [7], "runTaken returns once the lone lane ran, on the calling thread")
        #expect(pool.startedCount == 0, "no worker was started for a lone lane")
        #expect(context.mailbox == nil && context.deferredLanes.isEmpty)
    }

    @Test(.timeLimit(.minutes(1))) func aSmallBatchRunsOnTheCallingThreadInTheOrderTakenAndWakesNoWorker() {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let pool = DeliveryPool(workers: 1)
        let context = DriverContext(index: 0)
        context.acceptsMailbox = true
        for index in 0..<40 { _ = context.take(Lane(index, log: log, done: done)) }
        context.acceptsMailbox = false
        context.runTaken(on: pool)
        #expect(context.deferredLanes.isEmpty)
        // Fewer lanes than `lanesPerHelper`: the calling thread ran them all, in order, and woke nobody.
        #expect(log.indices == Array(0..<40))
        #expect(pool.startedCount == 0)
        #expect(pool.waitingCount == 0, "the batch left the ring when its submitter ran out of lanes")
        // A second wake reuses the batch (no worker is in it).
        context.acceptsMailbox = true
        for index in 40..<43 { _ = context.take(Lane(index, log: log, done: done)) }
        context.acceptsMailbox = false
        context.runTaken(on: pool)
        #expect(log.indices.suffix(3) == [40, 41, 42])
    }

    /// A lane that blocks until released, to hold the thread that takes it.
    final class BlockingLane: DeliveryLane {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        func runDeliveries() {
            started.signal()
            release.wait()
        }
    }

    @Test(.timeLimit(.minutes(1))) func aWorkerTakesTheRestOfABatchWhoseRunnerIsHeldUp() {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let pool = DeliveryPool(workers: 1)
        let context = DriverContext(index: 0)
        let blocking = BlockingLane()
        context.acceptsMailbox = true
        _ = context.take(blocking)
        for index in 1..<10 { _ = context.take(Lane(index, log: log, done: done)) }
        context.acceptsMailbox = false
        let thread = Thread { context.runTaken(on: pool) }
        thread.start()
        blocking.started.wait()
        // What the driver's other thread does when it takes over waiting: a worker comes for the waiting lanes.
        pool.serveWaiting()
        for _ in 1..<10 { done.wait() }
        #expect(log.indices == Array(1..<10), "the worker ran the other lanes, in order, while the first was held")
        blocking.release.signal()
        thread.join()
        #expect(pool.waitingCount == 0)
    }

    /// When the clock's other thread took over waiting before the batch was submitted (the wake's due work ran long),
    /// no take-over will call a worker in: the driver thread does it itself, so a blocked first lane still cannot
    /// hold the others.
    @Test(.timeLimit(.minutes(1))) func aWorkerIsCalledInAtOnceWhenNoThreadStandsBy() {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let pool = DeliveryPool(workers: 1)
        let context = DriverContext(index: 0)
        let blocking = BlockingLane()
        context.acceptsMailbox = true
        _ = context.take(blocking)
        for index in 1..<10 { _ = context.take(Lane(index, log: log, done: done)) }
        context.acceptsMailbox = false
        let thread = Thread { context.runTaken(on: pool, standsBy: { false }) }
        thread.start()
        blocking.started.wait()
        // Nobody calls `serveWaiting()` here.
        for _ in 1..<10 { done.wait() }
        #expect(log.indices == Array(1..<10))
        blocking.release.signal()
        thread.join()
    }

    /// A batch its driver thread handed over for good is kept by the pool once it left the ring, and handed out again
    /// only when no worker runs it any more, empty; a batch its driver keeps (run with `runTaken`) is never kept.
    @Test(.timeLimit(.minutes(1))) func aSpentBatchIsReusedOnlyOnceNoWorkerRunsIt() throws {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let pool = DeliveryPool(workers: 2)
        let blocking = BlockingLane()
        let batch = LaneBatch()
        batch.append(.lane(Lane(0, log: log, done: done)))
        batch.append(.lane(blocking))
        batch.isHandedOver = true
        pool.submit(batch: batch, helpers: 1)
        done.wait()
        blocking.started.wait()
        // Every member was taken, and a worker still runs the last one. A lane submitted now brings the second
        // worker, which finds the exhausted batch at the ring's head and takes it out.
        pool.submit(Lane(1, log: log, done: done))
        done.wait()
        #expect(pool.waitingCount == 0)
        #expect(pool.takeSpentBatch() == nil, "a worker still runs the batch: it is not handed out")
        blocking.release.signal()
        // The worker leaves the batch after its last member returned: wait (at most 10 s) for that.
        var reused: LaneBatch?
        let pause = DispatchSemaphore(value: 0)
        for _ in 0..<10_000 where reused == nil {
            reused = pool.takeSpentBatch()
            if reused == nil { _ = pause.wait(timeout: .now() + .milliseconds(1)) }
        }
        let spent = try #require(reused)
        #expect(spent === batch)
        #expect(spent.count == 0 && !spent.isHandedOver && !spent.inRing)
        #expect(pool.takeSpentBatch() == nil, "a spent batch is handed out once")
        #expect(log.indices == [0, 1])

        // A batch its submitter keeps (`runTaken`) is never kept by the pool.
        let context = DriverContext(index: 0)
        context.acceptsMailbox = true
        for index in 2..<200 { _ = context.take(Lane(index, log: log, done: done)) }
        context.acceptsMailbox = false
        context.runTaken(on: pool)
        for _ in 2..<200 { done.wait() }
        #expect(pool.takeSpentBatch() == nil)
    }
}
