import Tempo
import TempoLocks
import TempoTesting
import Testing

/// SingleTimer de-duplicates observers by id: `subscribe(id:)` replaces the subscription the id had.
@Suite struct TickerSubscriberIDTests {
    final class Log: Sendable {
        private let entries = TempoMutex<[String]>([])
        var all: [String] { entries.withLock { $0 } }
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    }

    @Test func subscribingTwiceUnderOneIDKeepsOnlyTheSecondHandler() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1), delivery: .immediate), scheduler: clock)
        let log = Log()
        try ticker.subscribe(id: "clock-label", handler: .tick { _ in log.add("first") })
        try ticker.subscribe(id: "clock-label", handler: .tick { _ in log.add("second") })
        try ticker.subscribe(id: "other", handler: .tick { _ in log.add("other") })
        #expect(ticker.subscriberCount == 2)
        clock.advance(by: .seconds(1))
        #expect(log.all == ["second", "other"])
    }

    @Test func anIDSubscriptionOutlivesItsTokenUntilCancelled() throws {
        let clock = VirtualClock()
        let ticker = try SharedTicker(.every(.seconds(1), delivery: .immediate), scheduler: clock)
        let log = Log()
        // The token is released at once: the subscription stays, found again by its id.
        _ = try ticker.subscribe(id: 7, handler: .tick { _ in log.add("tick") })
        clock.advance(by: .seconds(1))
        #expect(log.all == ["tick"])
        let replacement = try ticker.subscribe(id: 7, handler: .tick { _ in log.add("new") })
        clock.advance(by: .seconds(1))
        #expect(log.all == ["tick", "new"])
        replacement.cancel()
        #expect(ticker.subscriberCount == 0)
        #expect(!ticker.isTicking)
        clock.advance(by: .seconds(1))
        #expect(log.all == ["tick", "new"])
    }
}
