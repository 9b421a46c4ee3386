import Dispatch
import TempoLocks
import Testing

@testable import Tempo

/// A driver thread hands the default-delivery mailboxes of one wake to the delivery pool in one batch after the
/// wake's due work (issue #31: leeway batching with the default delivery), keeping the first to drain itself.
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

    @Test func theFirstLaneOfAWakeIsKeptAndTheOthersWaitForOneBatch() {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let lanes = (0..<5).map { Lane($0, log: log, done: done) }
        let context = DriverContext(index: 0)
        #expect(!context.take(lanes[0]), "outside a wake's due work the caller submits the lane itself")
        context.acceptsMailbox = true
        for lane in lanes { #expect(context.take(lane)) }
        context.acceptsMailbox = false
        #expect((context.mailbox as? Lane)?.index == 0)
        #expect(context.deferred.map { ($0 as! Lane).index } == [1, 2, 3, 4])
        #expect(log.indices.isEmpty, "nothing reaches the pool before the due work ends")
    }

    @Test(.timeLimit(.minutes(1))) func theBatchRunsOnThePoolInTheOrderTaken() {
        let log = Log()
        let done = DispatchSemaphore(value: 0)
        let pool = DeliveryPool(workers: 1)  // one worker: the ring's order is the run order
        let context = DriverContext(index: 0)
        context.acceptsMailbox = true
        for index in 0..<40 { _ = context.take(Lane(index, log: log, done: done)) }
        context.acceptsMailbox = false
        context.submitDeferred(to: pool)
        #expect(context.deferred.isEmpty)
        for _ in 1..<40 { done.wait() }
        #expect(log.indices == Array(1..<40))
        // A second wake (its mailbox still taken, as if being drained) hands all its lanes to the started worker.
        context.acceptsMailbox = true
        for index in 40..<43 { _ = context.take(Lane(index, log: log, done: done)) }
        context.acceptsMailbox = false
        context.submitDeferred(to: pool)
        for _ in 0..<3 { done.wait() }
        #expect(log.indices.suffix(3) == [40, 41, 42])
    }
}
