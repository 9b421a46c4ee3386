import Tempo
import TempoLocks
import TempoTesting
import Testing

@Suite struct DelayQueueTests {
    @Test func valuesArriveByForAwaitInDeadlineOrderNotBefore() async throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<String, Int>(configuration: .immediate, scheduler: clock)
        try queue.insert(3, forKey: "c", after: .seconds(3))
        try queue.insert(1, forKey: "a", at: .monotonic(TimerInstant(offset: .seconds(1))))
        try queue.insert(2, forKey: "b", after: .seconds(2))
        clock.advance(by: .seconds(1) - .nanoseconds(1))
        #expect(queue.count == 3)
        clock.advance(by: .seconds(2) + .nanoseconds(1))
        #expect(queue.count == 0)
        var iterator = queue.expired.makeAsyncIterator()
        var taken: [String] = []
        for _ in 0..<3 { taken.append(await iterator.next()?.key ?? "-") }
        #expect(taken == ["a", "b", "c"])
    }

    @Test func aKeyInsertedAgainKeepsItsFirstPlaceAmongEqualDeadlines() async throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<String, Int>(configuration: .immediate, scheduler: clock)
        let due = TimerDeadline.monotonic(TimerInstant(offset: .seconds(1)))
        try queue.insert(1, forKey: "a", at: due)
        try queue.insert(2, forKey: "b", at: due)
        #expect(try queue.insert(3, forKey: "a", at: due) == 1)
        clock.advance(by: .seconds(1))
        var iterator = queue.expired.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.key == "a" && first?.value == 3)
        #expect(second?.key == "b")
    }

    @Test func movedAndRemovedEntriesAreNotDeliveredAtTheirOldDeadline() async throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<String, Int>(configuration: .immediate, scheduler: clock)
        try queue.insert(1, forKey: "a", after: .seconds(1))
        try queue.insert(2, forKey: "b", after: .seconds(1))
        #expect(try queue.reschedule("a", after: .seconds(5)))
        #expect(queue.remove("b") == 2)
        #expect(try !queue.reschedule("b", after: .seconds(1)))
        clock.advance(by: .seconds(4))
        #expect(queue.count == 1)
        #expect(queue.deadline(of: "a")?.instant == TimerInstant(offset: .seconds(5)))
        clock.advance(by: .seconds(1))
        var iterator = queue.expired.makeAsyncIterator()
        let due = await iterator.next()
        #expect(due?.key == "a" && due?.value == 1 && due?.deadline.instant == TimerInstant(offset: .seconds(5)))
    }

    @Test func aDeadlineOnAnotherClockIsConvertedByTheTimeLeftOnIt() throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<Int, Int>(configuration: .immediate, scheduler: clock)
        let wallDeadline = clock.now(.wall) + .seconds(10)
        try queue.insert(1, forKey: 1, at: .wall(wallDeadline))
        #expect(queue.deadline(of: 1)?.instant == clock.now(.monotonic) + .seconds(10))
    }

    @Test func badDelaysThrowNamingTheValueAndChangeNothing() throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<Int, Int>(configuration: .immediate, scheduler: clock)
        let error = #expect(throws: TempoError.self) { try queue.insert(1, forKey: 1, after: .seconds(-2)) }
        #expect(error?.code == .invalidInterval)
        #expect(error?.message.contains("-2") == true)
        #expect(queue.count == 0)
    }

    @Test func cancellingTheConsumerEndsItsForAwaitAtOnce() async throws {
        let clock = VirtualClock()
        let queue = try DelayQueue<Int, Int>(configuration: .immediate, scheduler: clock)
        let consumer = Task {
            var count = 0
            for await _ in queue.expired { count += 1 }
            return count
        }
        consumer.cancel()
        #expect(await consumer.value == 0)
    }
}
