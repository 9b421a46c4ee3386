import HeapModule
import Testing

@testable import Tempo

@Suite struct DeadlineQueueTests {
    @Test(arguments: 0..<4)
    func matchesAHeapReferenceUnderRandomOperations(round: Int) {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var queue = DeadlineQueue()
        var reference = Heap<DeadlineReference>()
        var live = Set<UInt64>()
        var slots: [UInt64: UInt32] = [:]
        var nextID: UInt64 = 1
        var now = 0
        for step in 0..<20_000 {
            switch random.next() % 10 {
            case 0...4:
                let deadline = now + Int(random.next() % 1_000)
                slots[nextID] = queue.insert(
                    id: nextID,
                    deadline: TimerInstant(offset: .nanoseconds(deadline)),
                    leeway: .nanoseconds(Int(random.next() % 3)),
                    action: {}
                )
                reference.insert(DeadlineReference(deadline: deadline, id: nextID))
                live.insert(nextID)
                nextID += 1
            case 5...6:
                guard let victim = live.randomElement(using: &random) else { continue }
                #expect(queue.remove(id: victim, slot: slots[victim]!) != nil, "seed \(seed) step \(step)")
                #expect(queue.remove(id: victim, slot: slots[victim]!) == nil, "seed \(seed) step \(step)")
                live.remove(victim)
            default:
                now += Int(random.next() % 300)
                var due: [(UInt64, DeadlineQueue.Work)] = []
                queue.popDue(now: TimerInstant(offset: .nanoseconds(now)), into: &due)
                var expected: [UInt64] = []
                while let top = reference.min, top.deadline <= now {
                    reference.removeMin()
                    if live.remove(top.id) != nil { expected.append(top.id) }
                }
                #expect(due.map(\.0) == expected, "seed \(seed) step \(step)")
            }
            #expect(queue.count == live.count, "seed \(seed) step \(step)")
            if step % 500 == 0 { queue._checkInvariants() }
        }
        _ = round
    }

    @Test func aPunctualEntryBehindALenientOneSetsTheWake() {
        var queue = DeadlineQueue()
        queue.insert(id: 1, deadline: TimerInstant(offset: .nanoseconds(10)), leeway: .nanoseconds(100), action: {})
        queue.insert(id: 2, deadline: TimerInstant(offset: .nanoseconds(20)), leeway: .zero, action: {})
        #expect(queue.wakeInstant() == TimerInstant(offset: .nanoseconds(20)))
    }
}
