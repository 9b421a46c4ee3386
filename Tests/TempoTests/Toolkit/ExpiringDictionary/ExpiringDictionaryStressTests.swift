import Synchronization
import Tempo
import TempoTesting
import Testing

@Suite struct ExpiringDictionaryStressTests {
    @Test func fourThreadsAndAnAdvancingClockEndEveryEntryExactlyOnce() throws {
        let clock = VirtualClock()
        let expired = Atomic<Int>(0)
        let dictionary = try ExpiringDictionary<Int, Int>(configuration: .immediate, scheduler: clock) { _, _ in
            expired.add(1, ordering: .relaxed)
        }
        let created = Atomic<Int>(0)
        let removed = Atomic<Int>(0)
        Thread.run(5) { thread in
            var random = SeededGenerator(seed: UInt64(thread))
            for _ in 0..<4_000 {
                if thread == 4 {
                    clock.advance(by: .milliseconds(1))
                    continue
                }
                let key = Int.random(in: 0..<64, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    let ttl = Duration.milliseconds(Int.random(in: 1...20, using: &random))
                    do {
                        if try dictionary.updateValue(thread, forKey: key, expiringAfter: ttl) == nil {
                            created.add(1, ordering: .relaxed)
                        }
                    } catch {
                        Issue.record("\(error)")
                    }
                case 1:
                    if dictionary.removeValue(forKey: key) != nil { removed.add(1, ordering: .relaxed) }
                case 2: dictionary.touch(key)
                default: _ = dictionary.value(forKey: key)
                }
            }
        }
        dictionary._checkInvariants()
        let total = created.load(ordering: .relaxed)
        #expect(total == removed.load(ordering: .relaxed) + expired.load(ordering: .relaxed) + dictionary.count)
        clock.advance(by: .seconds(1))
        #expect(dictionary.count == 0)
        #expect(total == removed.load(ordering: .relaxed) + expired.load(ordering: .relaxed))
    }

    @Test func onTheSystemSchedulerEveryEntryExpires() async throws {
        let expired = Atomic<Int>(0)
        let dictionary = try ExpiringDictionary<Int, Int> { _, _ in expired.add(1, ordering: .relaxed) }
        Thread.run(4) { thread in
            for index in 0..<1_000 {
                _ = try? dictionary.updateValue(index, forKey: thread * 1_000 + index, expiringAfter: .milliseconds(5))
                dictionary.touch(thread * 1_000 + index / 2)
            }
        }
        // A generous bound that only catches a hang: expiry needs a few milliseconds of CPU.
        let start = ContinuousClock.now
        while expired.load(ordering: .relaxed) < 4_000, start.duration(to: .now) < .seconds(120) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(expired.load(ordering: .relaxed) == 4_000)
        #expect(dictionary.count == 0)
    }
}
