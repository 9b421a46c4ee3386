import Dispatch
import HeapModule
import Tempo
import TempoLocks
import TempoTesting
import Testing

@Suite struct ExpiringDictionaryTests {
    /// The keys that expired, in order.
    final class KeyLog: Sendable {
        let keys = TempoMutex<[Int]>([])
        func withLock<R: Sendable>(_ body: (inout [Int]) -> R) -> R { keys.withLock { body(&$0) } }
    }

    /// A dictionary on `clock` with 1 ms ticks delivering inside `advance`, logging what expires.
    static func make(_ clock: VirtualClock) throws -> (ExpiringDictionary<Int, String>, KeyLog) {
        let expired = KeyLog()
        let dictionary = try ExpiringDictionary<Int, String>(configuration: .immediate, scheduler: clock) { key, _ in
            expired.withLock { $0.append(key) }
        }
        return (dictionary, expired)
    }

    @Test func anEntryExpiresAtItsTTLAndNotANanosecondBefore() throws {
        let clock = VirtualClock()
        let (dictionary, expired) = try Self.make(clock)
        try dictionary.updateValue("a", forKey: 1, expiringAfter: .seconds(5))
        clock.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(dictionary.value(forKey: 1) == "a")
        #expect(expired.withLock { $0 } == [])
        clock.advance(by: .nanoseconds(1))
        #expect(dictionary.value(forKey: 1) == nil)
        #expect(expired.withLock { $0 } == [1])
        #expect(dictionary.count == 0)
    }

    @Test func touchSlidesTheTTLAndLookupDoesNot() throws {
        let clock = VirtualClock()
        let (dictionary, expired) = try Self.make(clock)
        try dictionary.updateValue("a", forKey: 1, expiringAfter: .seconds(10))
        try dictionary.updateValue("b", forKey: 2, expiringAfter: .seconds(10))
        clock.advance(by: .seconds(8))
        #expect(dictionary.touch(1))
        #expect(dictionary.value(forKey: 2) == "b")
        clock.advance(by: .seconds(2))
        #expect(expired.withLock { $0 } == [2])
        clock.advance(by: .seconds(8) - .nanoseconds(1))
        #expect(dictionary.value(forKey: 1) == "a")
        clock.advance(by: .nanoseconds(1))
        #expect(expired.withLock { $0 } == [2, 1])
        #expect(!dictionary.touch(1))
    }

    @Test func removedAndReplacedEntriesDoNotExpireAtTheirOldDeadline() throws {
        let clock = VirtualClock()
        let (dictionary, expired) = try Self.make(clock)
        try dictionary.updateValue("a", forKey: 1, expiringAfter: .seconds(1))
        try dictionary.updateValue("b", forKey: 2, expiringAfter: .seconds(1))
        #expect(dictionary.removeValue(forKey: 1) == "a")
        #expect(try dictionary.updateValue("c", forKey: 2, expiringAfter: .seconds(3)) == "b")
        clock.advance(by: .seconds(2))
        #expect(expired.withLock { $0 } == [])
        #expect(dictionary.value(forKey: 2) == "c")
        clock.advance(by: .seconds(1))
        #expect(expired.withLock { $0 } == [2])
    }

    @Test func aTTLThatIsNotPositiveThrowsNamingItAndChangesNothing() throws {
        let clock = VirtualClock()
        let (dictionary, _) = try Self.make(clock)
        for ttl in [Duration.zero, .seconds(-1)] {
            let error = #expect(throws: TempoError.self) {
                try dictionary.updateValue("a", forKey: 1, expiringAfter: ttl)
            }
            #expect(error?.code == .invalidInterval)
            #expect(error?.value == ttl.description || error?.message.contains("ttl") == true)
        }
        #expect(dictionary.count == 0)
    }

    @Test func onExpireMayCallBackIntoTheDictionary() throws {
        let clock = VirtualClock()
        let box = TempoMutex<ExpiringDictionary<Int, String>?>(nil)
        let dictionary = try ExpiringDictionary<Int, String>(configuration: .immediate, scheduler: clock) {
            key, value in
            // Renew every expired entry once, under a new key.
            if key < 100 {
                _ = try? box.withLock { $0 }?.updateValue(value, forKey: key + 100, expiringAfter: .seconds(1))
            }
        }
        box.withLock { $0 = dictionary }
        try dictionary.updateValue("a", forKey: 1, expiringAfter: .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(dictionary.value(forKey: 101) == "a")
        clock.advance(by: .seconds(1))
        #expect(dictionary.count == 0)
        box.withLock { $0 = nil }
    }
}
