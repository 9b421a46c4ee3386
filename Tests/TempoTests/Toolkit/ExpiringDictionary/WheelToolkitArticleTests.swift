import Synchronization
import Tempo
import TempoTesting
import Testing

// The examples of the article WheelToolkit.md (Tempo.docc), verbatim, and their tests.

/// Signed-in sessions that end after 30 minutes without a request.
final class Sessions: Sendable {
    let store: ExpiringDictionary<String, String>

    init(scheduler: any TimerScheduler = SystemScheduler.shared, onEnd: @escaping @Sendable (String) -> Void) throws {
        store = try ExpiringDictionary(scheduler: scheduler) { token, user in onEnd(user) }
    }

    func signIn(_ user: String, token: String) throws {
        try store.updateValue(user, forKey: token, expiringAfter: .seconds(30 * 60))
    }

    /// A request with `token`: its user, and 30 more minutes; `nil` when the session has ended.
    func user(for token: String) -> String? {
        guard store.touch(token) else { return nil }
        return store.value(forKey: token)
    }
}

@Suite struct WheelToolkitArticleTests {
    @Test func aSessionEndsThirtyMinutesAfterItsLastRequest() throws {
        let clock = VirtualClock()
        let ended = Mutex<[String]>([])
        let sessions = try Sessions(scheduler: clock) { user in ended.withLock { $0.append(user) } }
        try sessions.signIn("ada", token: "t1")
        clock.advance(by: .seconds(20 * 60))
        #expect(sessions.user(for: "t1") == "ada")  // the session now ends at 50 min
        clock.advance(by: .seconds(30 * 60) - .nanoseconds(1))
        #expect(ended.withLock { $0 } == [])
        clock.advance(by: .nanoseconds(1))
        #expect(ended.withLock { $0 } == ["ada"])
        #expect(sessions.user(for: "t1") == nil)
    }

    @Test func aClientGetsItsBurstThenOnePermitPerTenthOfASecond() throws {
        let clock = VirtualClock()
        let limiter = try KeyedRateLimiter<String>(
            try RateLimit(permits: 10, every: .seconds(1), burst: 2), scheduler: clock)
        #expect(limiter.tryAcquire("ada") && limiter.tryAcquire("ada"))
        #expect(!limiter.tryAcquire("ada"))
        #expect(limiter.tryAcquire("bob"))  // another client, another bucket
        clock.advance(by: .milliseconds(100) - .nanoseconds(1))
        #expect(!limiter.tryAcquire("ada"))
        clock.advance(by: .nanoseconds(1))
        #expect(limiter.tryAcquire("ada"))
        clock.advance(by: .seconds(1))
        #expect(limiter.count == 0)  // both buckets are full again: forgotten
    }
}
