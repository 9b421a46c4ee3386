import Synchronization
import Tempo
import TempoTesting
import Testing

@Suite struct DelayQueueStressTests {
    @Test func fourThreadsAndAnAdvancingClockDeliverEveryEntryAtMostOnce() async throws {
        let clock = VirtualClock()
        var queue: DelayQueue<Int, Int>? = try DelayQueue(configuration: .immediate, scheduler: clock)
        let expired = queue!.expired
        let (created, removed) = Self.churn(queue!, clock)
        queue = nil  // finishes the stream once the last reference is gone
        var delivered = 0
        for await _ in expired { delivered += 1 }
        #expect(created == removed + delivered)
    }

    /// Inserts, removes and moves entries from four threads while a fifth advances the clock; returns how many
    /// entries were created and removed.
    static func churn(_ shared: DelayQueue<Int, Int>, _ clock: VirtualClock) -> (Int, Int) {
        let created = Atomic<Int>(0)
        let removed = Atomic<Int>(0)
        Thread.run(5) { thread in
            var random = SeededGenerator(seed: UInt64(thread) + 100)
            for _ in 0..<4_000 {
                if thread == 4 {
                    clock.advance(by: .milliseconds(1))
                    continue
                }
                let key = Int.random(in: 0..<64, using: &random)
                let delay = Duration.milliseconds(Int.random(in: 1...20, using: &random))
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    do {
                        if try shared.insert(thread, forKey: key, after: delay) == nil {
                            created.add(1, ordering: .relaxed)
                        }
                    } catch {
                        Issue.record("\(error)")
                    }
                case 1:
                    if shared.remove(key) != nil { removed.add(1, ordering: .relaxed) }
                default: _ = try? shared.reschedule(key, after: delay)
                }
            }
        }
        shared._checkInvariants()
        clock.advance(by: .seconds(1))
        #expect(shared.count == 0)
        return (created.load(ordering: .relaxed), removed.load(ordering: .relaxed))
    }
}
