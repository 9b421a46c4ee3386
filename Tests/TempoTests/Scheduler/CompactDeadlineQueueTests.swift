import HeapModule
import Testing

@testable import Tempo

private func instant(_ nanoseconds: Int) -> TimerInstant {
    TimerInstant(offset: .nanoseconds(nanoseconds))
}

private func popDue(_ queue: inout CompactDeadlineQueue, now: Int) -> [UInt64] {
    var due: [(UInt64, CompactDeadlineQueue.Work)] = []
    var deadlines: [Int64] = []
    queue.popDue(now: instant(now), into: &due, deadlines: &deadlines)
    #expect(deadlines.count == due.count && deadlines == deadlines.sorted())
    return due.map(\.0)
}

@Suite struct CompactDeadlineQueueTests {
    /// A queue beside a heap reference of (deadline, id), with the bookkeeping the model tests share.
    private struct Model: ~Copyable {
        var queue: CompactDeadlineQueue
        var reference = Heap<DeadlineReference>()
        /// Live entries: their slot, and their deadline + leeway.
        var live: [UInt64: (slot: UInt32, latest: Int)] = [:]
        /// Entries that were cancelled or popped, whose handles are stale.
        var removed: [(id: UInt64, slot: UInt32)] = []
        var nextID: UInt64 = 1
        var now = 0

        init(firstSequence: UInt32 = 1) {
            queue = CompactDeadlineQueue(firstSequence: firstSequence)
        }

        mutating func insert(deadline: Int, leeway: Int) {
            let slot = queue.insert(
                id: nextID, deadline: instant(deadline), leeway: .nanoseconds(leeway), work: .action({}))
            reference.insert(DeadlineReference(deadline: deadline, id: nextID))
            live[nextID] = (slot, deadline + leeway)
            nextID += 1
        }

        /// Cancels a random live entry; returns whether the queue had it, or `nil` when nothing is live.
        mutating func cancelRandom(using random: inout SeededGenerator) -> Bool? {
            guard let victim = live.keys.randomElement(using: &random) else { return nil }
            let slot = live.removeValue(forKey: victim)!.slot
            removed.append((victim, slot))
            return queue.remove(id: victim, slot: slot) != nil
        }

        /// Moves time on by `step` and pops; returns the queue's ids and the reference's (due and still live).
        mutating func advance(by step: Int) -> (due: [UInt64], expected: [UInt64]) {
            now += step
            let due = popDue(&queue, now: now)
            var expected: [UInt64] = []
            while let top = reference.min, top.deadline <= now {
                reference.removeMin()
                if let entry = live.removeValue(forKey: top.id) {
                    expected.append(top.id)
                    removed.append((top.id, entry.slot))
                }
            }
            return (due, expected)
        }
    }

    /// Random inserts (with and without leeway), cancels, stale cancels and pops, checked against a heap of
    /// (deadline, id) and a scan for the wake instant; `firstSequence` near the end of the range makes the queue
    /// renumber in the middle of the run.
    @Test(arguments: [UInt32(1), UInt32.max - 3_000])
    func matchesAHeapReferenceUnderRandomOperations(firstSequence: UInt32) {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var model = Model(firstSequence: firstSequence)
        for step in 0..<20_000 {
            switch random.next() % 10 {
            case 0...4:
                // Few distinct deadlines, so that many are equal and FIFO order is exercised.
                let deadline = model.now + Int(random.next() % 200)
                model.insert(deadline: deadline, leeway: random.next() % 3 == 0 ? Int(random.next() % 50) : 0)
            case 5...6:
                if let stale = model.removed.randomElement(using: &random) {
                    #expect(model.queue.remove(id: stale.id, slot: stale.slot) == nil, "seed \(seed) step \(step)")
                }
                if let found = model.cancelRandom(using: &random) { #expect(found, "seed \(seed) step \(step)") }
            default:
                let popped = model.advance(by: Int(random.next() % 100))
                #expect(popped.due == popped.expected, "seed \(seed) step \(step)")
            }
            #expect(model.queue.count == model.live.count, "seed \(seed) step \(step)")
            let expectedWake = model.live.values.map(\.latest).min().map { instant($0) }
            #expect(model.queue.wakeInstant() == expectedWake, "seed \(seed) step \(step)")
            if step % 500 == 0 { model.queue._checkInvariants() }
        }
        model.queue._checkInvariants()
    }

    /// Bursts of thousands of entries that grow the table by several chunks, then cancels and pops that drain it down
    /// to a few hundred, so that chunks are given back as they empty; every pop is checked against a heap reference.
    @Test func matchesAHeapReferenceAcrossBurstsThatGrowAndShrinkTheTable() {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var model = Model()
        let chunk = ChunkedBuffer<UInt32>.chunkSize
        for phase in 0..<12 {
            for _ in 0..<Int(random.next() % 6_000) {
                let deadline = model.now + 1 + Int(random.next() % 5_000)
                model.insert(deadline: deadline, leeway: random.next() % 4 == 0 ? Int(random.next() % 20) : 0)
            }
            model.queue._checkInvariants()
            while model.live.count > 300 {
                if random.next() % 2 == 0 {
                    #expect(model.cancelRandom(using: &random) == true, "seed \(seed) phase \(phase)")
                } else {
                    let popped = model.advance(by: Int(random.next() % 200))
                    #expect(popped.due == popped.expected, "seed \(seed) phase \(phase)")
                }
            }
            for stale in model.removed.suffix(50) {
                #expect(model.queue.remove(id: stale.id, slot: stale.slot) == nil, "seed \(seed) phase \(phase)")
            }
            #expect(model.queue.count == model.live.count, "seed \(seed) phase \(phase)")
            // The table holds the chunk of the highest live slot, and at most one more.
            let needed = (Int(model.live.values.map(\.slot).max() ?? 0) / chunk + 2) * chunk
            #expect(model.queue.slotCapacity <= needed, "seed \(seed) phase \(phase)")
            model.queue._checkInvariants()
        }
        while model.cancelRandom(using: &random) != nil {}
        #expect(model.queue.slotCapacity <= chunk, "seed \(seed)")
        model.queue._checkInvariants()
    }

    /// Mass expiries: thousands of entries of which about a quarter, then all, fall due at once, which `popDue` takes
    /// in bulk (one walk, a sort, one rebuild of the heap: ``CompactDeadlineQueue/bulkMinimum``), with lenient entries
    /// and cancelled ones among them and many equal deadlines: the order is the reference's, as the pop loop gives it.
    @Test func aMassExpiryIsTakenInTheReferenceOrder() {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var model = Model()
        for round in 0..<4 {
            for _ in 0..<5_000 {
                let deadline = model.now + 1 + Int(random.next() % 400)
                model.insert(deadline: deadline, leeway: random.next() % 5 == 0 ? Int(random.next() % 30) : 0)
            }
            for _ in 0..<500 { _ = model.cancelRandom(using: &random) }
            let quarter = model.advance(by: 100)
            // The bulk path's condition: a sixteenth of a heap of at least `bulkMinimum` keys.
            #expect(quarter.due.count * 16 >= 5_000 && 3_000 >= CompactDeadlineQueue.bulkMinimum, "seed \(seed)")
            #expect(quarter.due == quarter.expected, "seed \(seed) round \(round)")
            let rest = model.advance(by: 400)
            #expect(rest.due == rest.expected, "seed \(seed) round \(round)")
            #expect(model.live.isEmpty && model.queue.count == 0, "seed \(seed) round \(round)")
            model.queue._checkInvariants()
        }
    }

    /// A mass expiry with a hand-over (the driver's wake): the due default-delivery timers of the punctual heap are
    /// handed over as the walk finds them, each once; the rest of the due work (closures, lenient entries) comes out
    /// in the reference order; cancelled entries never come out, and entries not due stay, with the queue's invariants
    /// kept (the walk defers compaction and the slot table's shrinking to its end).
    @Test func aMassExpiryHandsItsPooledTimersOverAndKeepsTheRestInOrder() throws {
        let timer = try TempoTimer(.after(.seconds(3_600))) { _ in }
        var queue = CompactDeadlineQueue()
        var slots: [UInt64: UInt32] = [:]
        var pooled: Set<UInt64> = []
        // (deadline, id) of every due entry not cancelled.
        var due: [(deadline: Int, id: UInt64)] = []
        for id in UInt64(1)...6_000 {
            let deadline = id % 10 == 0 ? 1_000 : 100 + Int(id % 7)
            let lenient = id % 11 == 0
            let leeway: Duration = lenient ? .nanoseconds(5) : .zero
            if id % 3 == 0 {
                slots[id] = queue.insert(id: id, deadline: instant(deadline), leeway: leeway, work: .action({}))
            } else {
                slots[id] = queue.insert(
                    id: id, due: .init(deadline: instant(deadline), leeway: leeway), target: .pooledTimer(timer))
                if !lenient && deadline < 1_000 { pooled.insert(id) }
            }
            if deadline < 1_000 { due.append((deadline, id)) }
        }
        for id in stride(from: UInt64(13), through: 6_000, by: 13) {
            #expect(queue.remove(id: id, slot: slots[id]!) != nil)
            pooled.remove(id)
            due.removeAll { $0.id == id }
        }
        // The hand-over runs synchronously inside `popDue`, on this thread (its closure is not `@Sendable`).
        var handedOver: [UInt64] = []
        var work: [(UInt64, CompactDeadlineQueue.Work)] = []
        var deadlines: [Int64] = []
        queue.popDue(now: instant(200), into: &work, deadlines: &deadlines) {
            (handed: consuming CompactDeadlineQueue.Work) in
            if case .target(.pooledTimer, let id) = handed {
                handedOver.append(id)
            } else {
                Issue.record("not a timer")
            }
        }
        #expect(handedOver.count == pooled.count && Set(handedOver) == pooled)
        let expected = due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }.map(\.id).filter {
            !pooled.contains($0)
        }
        #expect(work.map(\.0) == expected)
        #expect(deadlines.count == work.count && deadlines == deadlines.sorted())
        // The entries due at 1,000 (every tenth id) that were not cancelled (every 130th id of all was).
        #expect(queue.count == 600 - 6_000 / 130)
        queue._checkInvariants()
        #expect(queue.wakeInstant() == instant(1_000))
    }

    @Test func aPunctualEntryBehindALenientOneSetsTheWake() {
        var queue = CompactDeadlineQueue()
        queue.insert(id: 1, deadline: instant(10), leeway: .nanoseconds(100), work: .action({}))
        queue.insert(id: 2, deadline: instant(20), leeway: .zero, work: .action({}))
        #expect(queue.wakeInstant() == instant(20))
        #expect(popDue(&queue, now: 19) == [1])
        #expect(queue.wakeInstant() == instant(20))
        #expect(popDue(&queue, now: 20) == [2])
        #expect(queue.wakeInstant() == nil)
    }

    @Test func equalDeadlinesRunInInsertionOrderAcrossTheRenumbering() {
        // The sequence numbers run out after three inserts: the fourth renumbers the live entries.
        var queue = CompactDeadlineQueue(firstSequence: UInt32.max - 3)
        for id in UInt64(1)...8 {
            let leeway: Duration = id % 2 == 0 ? .nanoseconds(5) : .zero
            queue.insert(id: id, deadline: instant(id == 3 ? 50 : 100), leeway: leeway, work: .action({}))
            queue._checkInvariants()
        }
        #expect(popDue(&queue, now: 99) == [3])
        #expect(popDue(&queue, now: 100) == [1, 2, 4, 5, 6, 7, 8])
        queue._checkInvariants()
    }

    @Test func aStaleKeyDoesNotRunTheEntryThatReusedItsSlot() {
        var queue = CompactDeadlineQueue()
        let slot = queue.insert(id: 1, deadline: instant(10), leeway: .zero, work: .action({}))
        #expect(queue.remove(id: 1, slot: slot) != nil)
        let reused = queue.insert(id: 2, deadline: instant(30), leeway: .zero, work: .action({}))
        #expect(reused == slot)
        #expect(queue.remove(id: 1, slot: slot) == nil)
        #expect(popDue(&queue, now: 29) == [])
        #expect(popDue(&queue, now: 30) == [2])
    }

    @Test func deadlinesAreKeptAtNanosecondResolutionRoundedUp() {
        var queue = CompactDeadlineQueue()
        let halfPastTen = TimerInstant(offset: .nanoseconds(10) + .nanoseconds(0.5))
        queue.insert(id: 1, deadline: halfPastTen, leeway: .zero, work: .action({}))
        #expect(queue.wakeInstant() == instant(11))
        #expect(popDue(&queue, now: 10) == [])
        // A clock reading is rounded down: 10.9 ns has not reached 11.
        var due: [(UInt64, CompactDeadlineQueue.Work)] = []
        var deadlines: [Int64] = []
        queue.popDue(now: TimerInstant(offset: .nanoseconds(10) + .nanoseconds(0.9)), into: &due, deadlines: &deadlines)
        #expect(due.isEmpty && deadlines.isEmpty)
        #expect(popDue(&queue, now: 11) == [1])
    }

    @Test func deadlinesBeyondSixtyFourBitsSaturate() {
        var queue = CompactDeadlineQueue()
        queue.insert(id: 1, deadline: TimerInstant(offset: .seconds(Int64.max)), leeway: .zero, work: .action({}))
        queue.insert(id: 2, deadline: TimerInstant(offset: .seconds(-1)), leeway: .zero, work: .action({}))
        #expect(popDue(&queue, now: 0) == [2])
        #expect(popDue(&queue, now: Int(Int64.max) - 1) == [])
        #expect(queue.count == 1)
    }

    @Test func cancelledEntriesAreCompactedAndTheirSlotsReused() {
        var queue = CompactDeadlineQueue()
        var slots: [UInt32] = []
        for id in UInt64(1)...2_000 {
            slots.append(queue.insert(id: id, deadline: instant(1_000), leeway: .zero, work: .action({})))
        }
        for id in UInt64(1)...1_990 {
            #expect(queue.remove(id: id, slot: slots[Int(id - 1)]) != nil)
        }
        queue._checkInvariants()
        for id in UInt64(2_001)...3_000 {
            let slot = queue.insert(id: id, deadline: instant(500), leeway: .zero, work: .action({}))
            #expect(slot < 2_000)
        }
        #expect(popDue(&queue, now: 999).count == 1_000)
        #expect(popDue(&queue, now: 1_000) == Array(UInt64(1_991)...2_000))
        queue._checkInvariants()
    }

    @Test func aNewEntryTakesTheLowestFreeSlot() {
        var queue = CompactDeadlineQueue()
        var slots: [UInt32] = []
        for id in UInt64(1)...10 {
            slots.append(queue.insert(id: id, deadline: instant(100), leeway: .zero, work: .action({})))
        }
        #expect(slots == Array(0...9))
        for id in [UInt64(8), 3, 6] { #expect(queue.remove(id: id, slot: slots[Int(id - 1)]) != nil) }
        #expect(queue.insert(id: 11, deadline: instant(100), leeway: .zero, work: .action({})) == 2)
        #expect(queue.insert(id: 12, deadline: instant(100), leeway: .zero, work: .action({})) == 5)
        #expect(queue.insert(id: 13, deadline: instant(100), leeway: .zero, work: .action({})) == 7)
        #expect(queue.insert(id: 14, deadline: instant(100), leeway: .zero, work: .action({})) == 10)
        queue._checkInvariants()
    }

    /// A burst on top of a few long-lived entries: once it is over, the table and the heaps are back to the chunks
    /// the long-lived entries need, plus one chunk of slack; a second burst grows them again.
    @Test func theMemoryOfABurstIsGivenBackWhenItEnds() {
        let chunk = ChunkedBuffer<UInt32>.chunkSize
        var queue = CompactDeadlineQueue()
        var nextID: UInt64 = 1
        var steady: [(UInt64, UInt32)] = []
        for _ in 0..<100 {
            steady.append(
                (nextID, queue.insert(id: nextID, deadline: instant(1_000_000), leeway: .zero, work: .action({}))))
            nextID += 1
        }
        for round in 0..<2 {
            var burst: [(UInt64, UInt32)] = []
            for index in 0..<(20 * chunk) {
                let leeway: Duration = index % 4 == 0 ? .nanoseconds(10) : .zero
                burst.append(
                    (
                        nextID,
                        queue.insert(id: nextID, deadline: instant(500 + index), leeway: leeway, work: .action({}))
                    ))
                nextID += 1
            }
            #expect(queue.slotCapacity >= 20 * chunk, "round \(round)")
            // Half the burst is cancelled, the rest comes due.
            for (id, slot) in burst where id % 2 == 0 { #expect(queue.remove(id: id, slot: slot) != nil) }
            #expect(popDue(&queue, now: 500 + 20 * chunk).count == 10 * chunk, "round \(round)")
            #expect(queue.count == 100)
            #expect(queue.slotCapacity == 2 * chunk, "round \(round)")
            // Each of the three heaps keeps its dead keys until they outnumber the live ones four to one, plus
            // at most two chunks of room.
            #expect(queue.keyCapacity <= 3 * 2 * chunk, "round \(round)")
            queue._checkInvariants()
        }
        for (id, slot) in steady { #expect(queue.remove(id: id, slot: slot) != nil) }
        #expect(queue.slotCapacity <= chunk)
        #expect(queue.keyCapacity <= 3 * 2 * chunk)
        queue._checkInvariants()
    }

    /// An entry that is cancelled and armed again at a chunk boundary does not grow and shrink the table each time.
    @Test func armingAtAChunkBoundaryDoesNotGrowAndShrinkEachTime() {
        let chunk = ChunkedBuffer<UInt32>.chunkSize
        var queue = CompactDeadlineQueue()
        var slots: [UInt32] = []
        for id in UInt64(1)...UInt64(chunk) {
            slots.append(queue.insert(id: id, deadline: instant(1_000), leeway: .zero, work: .action({})))
        }
        var (id, slot) = (
            UInt64(chunk + 1),
            queue.insert(id: UInt64(chunk + 1), deadline: instant(1_000), leeway: .zero, work: .action({}))
        )
        #expect(queue.slotCapacity == 2 * chunk)
        for _ in 0..<100 {
            #expect(queue.remove(id: id, slot: slot) != nil)
            #expect(queue.slotCapacity == 2 * chunk)
            id += 1
            slot = queue.insert(id: id, deadline: instant(1_000), leeway: .zero, work: .action({}))
            #expect(slot == UInt32(chunk))
        }
        queue._checkInvariants()
        _ = slots
    }
}
