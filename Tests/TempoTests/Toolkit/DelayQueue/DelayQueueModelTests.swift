import HeapModule
import Tempo
import TempoTesting
import Testing

/// Random inserts, moves and removals on a ``DelayQueue`` against a `Dictionary` of deadlines plus a `Heap`, on
/// virtual time with whole-millisecond deadlines.
@Suite struct DelayQueueModelTests {
    struct Due: Comparable {
        var deadline: Int
        var key: Int
        static func < (a: Due, b: Due) -> Bool { (a.deadline, a.key) < (b.deadline, b.key) }
    }

    @Test(arguments: 0..<4) func randomOperationsMatchADictionaryPlusAHeap(round: Int) async throws {
        let seed = SeededGenerator.seed()
        print("DelayQueueModelTests round \(round) seed \(seed) (replay with TEMPO_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let clock = VirtualClock()
        let queue = try DelayQueue<Int, Int>(configuration: .immediate, scheduler: clock)
        var iterator = queue.expired.makeAsyncIterator()
        var entries: [Int: (value: Int, deadline: Int)] = [:]
        var heap = Heap<Due>()
        var now = 0
        for step in 0..<3_000 {
            let key = Int.random(in: 0..<48, using: &random)
            let deadline = now + Int.random(in: 1...60, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3:
                let value = Int.random(in: 0..<1_000, using: &random)
                let old: Int?
                if Bool.random(using: &random) {
                    old = try queue.insert(value, forKey: key, after: .milliseconds(deadline - now))
                } else {
                    let instant = TimerInstant(offset: .milliseconds(deadline))
                    old = try queue.insert(value, forKey: key, at: .monotonic(instant))
                }
                #expect(old == entries[key]?.value, "seed \(seed) step \(step)")
                entries[key] = (value, deadline)
                heap.insert(Due(deadline: deadline, key: key))
            case 3..<5:
                let moved = try queue.reschedule(
                    key, at: .monotonic(TimerInstant(offset: .milliseconds(deadline))))
                #expect(moved == (entries[key] != nil), "seed \(seed) step \(step)")
                if moved {
                    entries[key]!.deadline = deadline
                    heap.insert(Due(deadline: deadline, key: key))
                }
            case 5:
                #expect(queue.remove(key) == entries.removeValue(forKey: key)?.value, "seed \(seed) step \(step)")
            case 6:
                let expected = entries[key].map { TimerInstant(offset: .milliseconds($0.deadline)) }
                #expect(queue.deadline(of: key)?.instant == expected, "seed \(seed) step \(step)")
            default:
                now += Int.random(in: 0...12, using: &random)
                clock.advance(to: TimerInstant(offset: .milliseconds(now)))
                var due: [Due] = []
                while let top = heap.min, top.deadline <= now {
                    heap.removeMin()
                    if let entry = entries[top.key], entry.deadline == top.deadline {
                        entries[top.key] = nil
                        due.append(top)
                    }
                }
                #expect(queue.count == entries.count, "seed \(seed) step \(step)")
                guard queue.count == entries.count else { return }  // reading on would wait forever
                var seen: [Due] = []
                for _ in due {
                    guard let next = await iterator.next() else { break }
                    let milliseconds = next.deadline.instant.offset.attoseconds / 1_000_000_000_000_000
                    seen.append(Due(deadline: Int(milliseconds), key: next.key))
                }
                #expect(seen.sorted() == due.sorted(), "seed \(seed) step \(step)")
                #expect(seen.map(\.deadline) == seen.map(\.deadline).sorted(), "seed \(seed) step \(step): order")
            }
            if step % 100 == 0 { queue._checkInvariants() }
        }
        queue._checkInvariants()
    }
}
