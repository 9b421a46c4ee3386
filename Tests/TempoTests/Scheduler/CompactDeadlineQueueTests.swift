import HeapModule
import Testing

@testable import Tempo

@Suite struct CompactDeadlineQueueTests {
    private static func instant(_ nanoseconds: Int) -> TimerInstant {
        TimerInstant(offset: .nanoseconds(nanoseconds))
    }

    private static func popDue(_ queue: inout CompactDeadlineQueue, now: Int) -> [UInt64] {
        var due: [(UInt64, CompactDeadlineQueue.Work)] = []
        queue.popDue(now: instant(now), into: &due)
        return due.map(\.0)
    }

    /// Random inserts (with and without leeway), cancels, stale cancels and pops, checked against a heap of
    /// (deadline, id) and a scan for the wake instant; `firstSequence` near the end of the range makes the queue
    /// renumber in the middle of the run.
    @Test(arguments: [UInt32(1), UInt32.max - 3_000])
    func matchesAHeapReferenceUnderRandomOperations(firstSequence: UInt32) {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var queue = CompactDeadlineQueue(firstSequence: firstSequence)
        var reference = Heap<DeadlineReference>()
        var live: [UInt64: (slot: UInt32, latest: Int)] = [:]
        var removed: [(id: UInt64, slot: UInt32)] = []
        var nextID: UInt64 = 1
        var now = 0
        for step in 0..<20_000 {
            switch random.next() % 10 {
            case 0...4:
                // Few distinct deadlines, so that many are equal and FIFO order is exercised.
                let deadline = now + Int(random.next() % 200)
                let leeway = random.next() % 3 == 0 ? Int(random.next() % 50) : 0
                let slot = queue.insert(
                    id: nextID, deadline: Self.instant(deadline), leeway: .nanoseconds(leeway), work: .action({}))
                reference.insert(DeadlineReference(deadline: deadline, id: nextID))
                live[nextID] = (slot, deadline + leeway)
                nextID += 1
            case 5...6:
                if let stale = removed.randomElement(using: &random) {
                    #expect(queue.remove(id: stale.id, slot: stale.slot) == nil, "seed \(seed) step \(step)")
                }
                guard let victim = live.keys.randomElement(using: &random) else { continue }
                let slot = live.removeValue(forKey: victim)!.slot
                #expect(queue.remove(id: victim, slot: slot) != nil, "seed \(seed) step \(step)")
                removed.append((victim, slot))
            default:
                now += Int(random.next() % 100)
                let due = Self.popDue(&queue, now: now)
                var expected: [UInt64] = []
                while let top = reference.min, top.deadline <= now {
                    reference.removeMin()
                    if let entry = live.removeValue(forKey: top.id) {
                        expected.append(top.id)
                        removed.append((top.id, entry.slot))
                    }
                }
                #expect(due == expected, "seed \(seed) step \(step)")
            }
            #expect(queue.count == live.count, "seed \(seed) step \(step)")
            let expectedWake = live.values.map(\.latest).min().map { Self.instant($0) }
            #expect(queue.wakeInstant() == expectedWake, "seed \(seed) step \(step)")
            if step % 500 == 0 { queue._checkInvariants() }
        }
        queue._checkInvariants()
    }

    @Test func aPunctualEntryBehindALenientOneSetsTheWake() {
        var queue = CompactDeadlineQueue()
        queue.insert(id: 1, deadline: Self.instant(10), leeway: .nanoseconds(100), work: .action({}))
        queue.insert(id: 2, deadline: Self.instant(20), leeway: .zero, work: .action({}))
        #expect(queue.wakeInstant() == Self.instant(20))
        #expect(Self.popDue(&queue, now: 19) == [1])
        #expect(queue.wakeInstant() == Self.instant(20))
        #expect(Self.popDue(&queue, now: 20) == [2])
        #expect(queue.wakeInstant() == nil)
    }

    @Test func equalDeadlinesRunInInsertionOrderAcrossTheRenumbering() {
        // The sequence numbers run out after three inserts: the fourth renumbers the live entries.
        var queue = CompactDeadlineQueue(firstSequence: UInt32.max - 3)
        for id in UInt64(1)...8 {
            let leeway: Duration = id % 2 == 0 ? .nanoseconds(5) : .zero
            queue.insert(id: id, deadline: Self.instant(id == 3 ? 50 : 100), leeway: leeway, work: .action({}))
            queue._checkInvariants()
        }
        #expect(Self.popDue(&queue, now: 99) == [3])
        #expect(Self.popDue(&queue, now: 100) == [1, 2, 4, 5, 6, 7, 8])
        queue._checkInvariants()
    }

    @Test func aStaleKeyDoesNotRunTheEntryThatReusedItsSlot() {
        var queue = CompactDeadlineQueue()
        let slot = queue.insert(id: 1, deadline: Self.instant(10), leeway: .zero, work: .action({}))
        #expect(queue.remove(id: 1, slot: slot) != nil)
        let reused = queue.insert(id: 2, deadline: Self.instant(30), leeway: .zero, work: .action({}))
        #expect(reused == slot)
        #expect(queue.remove(id: 1, slot: slot) == nil)
        #expect(Self.popDue(&queue, now: 29) == [])
        #expect(Self.popDue(&queue, now: 30) == [2])
    }

    @Test func deadlinesAreKeptAtNanosecondResolutionRoundedUp() {
        var queue = CompactDeadlineQueue()
        let halfPastTen = TimerInstant(offset: .nanoseconds(10) + .nanoseconds(0.5))
        queue.insert(id: 1, deadline: halfPastTen, leeway: .zero, work: .action({}))
        #expect(queue.wakeInstant() == Self.instant(11))
        #expect(Self.popDue(&queue, now: 10) == [])
        // A clock reading is rounded down: 10.9 ns has not reached 11.
        var due: [(UInt64, CompactDeadlineQueue.Work)] = []
        queue.popDue(now: TimerInstant(offset: .nanoseconds(10) + .nanoseconds(0.9)), into: &due)
        #expect(due.isEmpty)
        #expect(Self.popDue(&queue, now: 11) == [1])
    }

    @Test func deadlinesBeyondSixtyFourBitsSaturate() {
        var queue = CompactDeadlineQueue()
        queue.insert(id: 1, deadline: TimerInstant(offset: .seconds(Int64.max)), leeway: .zero, work: .action({}))
        queue.insert(id: 2, deadline: TimerInstant(offset: .seconds(-1)), leeway: .zero, work: .action({}))
        #expect(Self.popDue(&queue, now: 0) == [2])
        #expect(Self.popDue(&queue, now: Int(Int64.max) - 1) == [])
        #expect(queue.count == 1)
    }

    @Test func cancelledEntriesAreCompactedAndTheirSlotsReused() {
        var queue = CompactDeadlineQueue()
        var slots: [UInt32] = []
        for id in UInt64(1)...2_000 {
            slots.append(queue.insert(id: id, deadline: Self.instant(1_000), leeway: .zero, work: .action({})))
        }
        for id in UInt64(1)...1_990 {
            #expect(queue.remove(id: id, slot: slots[Int(id - 1)]) != nil)
        }
        queue._checkInvariants()
        for id in UInt64(2_001)...3_000 {
            let slot = queue.insert(id: id, deadline: Self.instant(500), leeway: .zero, work: .action({}))
            #expect(slot < 2_000)
        }
        #expect(Self.popDue(&queue, now: 999).count == 1_000)
        #expect(Self.popDue(&queue, now: 1_000) == Array(UInt64(1_991)...2_000))
        queue._checkInvariants()
    }
}
