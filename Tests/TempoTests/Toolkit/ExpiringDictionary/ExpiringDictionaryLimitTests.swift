import Tempo
import TempoTesting
import Testing

/// Times to live at the 292-year edge of the wheel's range (issue #41): a wheel's deadlines lie within
/// `TempoError.maximumDuration` of its creation.
@Suite struct ExpiringDictionaryLimitTests {
    /// The fuzz pass's case: a TTL whose deadline passes the wheel's range threw `invalidInstant`, where the
    /// documentation says `invalidInterval`.
    @Test(arguments: [TempoError.maximumDuration, TempoError.maximumDuration - .milliseconds(500)])
    func aTTLWhoseDeadlineLeavesTheWheelsRangeThrowsInvalidIntervalNamingIt(ttl: Duration) throws {
        let clock = VirtualClock()
        let (dictionary, _) = try ExpiringDictionaryTests.make(clock)
        try dictionary.updateValue("a", forKey: 1, expiringAfter: .seconds(10))
        clock.advance(by: .seconds(1))
        for key in [1, 2] {
            let error = #expect(throws: TempoError.self) {
                try dictionary.updateValue("b", forKey: key, expiringAfter: ttl)
            }
            #expect(error?.code == .invalidInterval)
            #expect(error?.value == ttl.exactDescription)
        }
        // Locals: a failed expectation reflects its operands, and reflecting the dictionary crashes Swift Testing.
        let (count, value) = (dictionary.count, dictionary.value(forKey: 1))
        #expect(count == 1)
        #expect(value == "a")
        clock.advance(by: .seconds(9))
        let left = dictionary.count
        #expect(left == 0)
    }

    /// The fuzz pass's other case: `touch` returned `false` for a present entry once its slid deadline left the
    /// wheel's range. It returns `true`; the entry stays, due at the end of the range.
    @Test func touchingAnEntryWhoseSlidDeadlineLeavesTheWheelsRangeKeepsItAndReturnsTrue() throws {
        let clock = VirtualClock()
        let (dictionary, expired) = try ExpiringDictionaryTests.make(clock)
        try dictionary.updateValue("a", forKey: 1, expiringAfter: TempoError.maximumDuration)
        try dictionary.updateValue("b", forKey: 2, expiringAfter: TempoError.maximumDuration - .seconds(10))
        clock.advance(by: .seconds(20))
        // Locals: a failed expectation reflects its operands, and reflecting the dictionary crashes Swift Testing.
        let touched = (dictionary.touch(1), dictionary.touch(2))
        #expect(touched == (true, true))
        let values = (dictionary.value(forKey: 1), dictionary.value(forKey: 2))
        #expect(values == ("a", "b"))
        clock.advance(by: .seconds(100 * 365 * 86_400))
        let touchedAgain = dictionary.touch(1)
        #expect(touchedAgain)
        let count = dictionary.count
        #expect(count == 2)
        #expect(expired.withLock { $0 } == [])
        dictionary._checkInvariants()
    }
}
