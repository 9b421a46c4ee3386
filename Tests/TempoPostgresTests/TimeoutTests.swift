#if Postgres
import Synchronization
import TempoPostgres
import Testing

/// The per-call time limit of TempoPostgres' database calls (`withTimeout(_:orThrow:_:)`). Needs no server.
@Suite(.timeLimit(.minutes(1))) struct TimeoutTests {
    struct Late: Error {}

    /// A wait that ignores cancellation, as a query waiting for a connection of postgres-nio's pool does; ended by
    /// ``open()``.
    final class Gate: Sendable {
        private let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
        private let opened = Mutex(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = opened.withLock { opened in
                    if !opened { waiter.withLock { $0 = continuation } }
                    return opened
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let continuation = opened.withLock { opened in
                opened = true
                return waiter.withLock { waiter in
                    defer { waiter = nil }
                    return waiter
                }
            }
            continuation?.resume()
        }
    }

    @Test func aBodyThatIgnoresCancellationDoesNotHoldTheCallerPastTheLimit() async throws {
        let gate = Gate()
        let ended = Atomic(false)
        await #expect(throws: Late.self) {
            try await withTimeout(.milliseconds(100), orThrow: Late()) {
                await gate.wait()
                ended.store(true, ordering: .relaxed)
            }
        }
        let bodyEnded = ended.load(ordering: .relaxed)
        #expect(!bodyEnded)
        gate.open()  // the body left behind ends now
    }

    @Test func theTimeoutErrorIsBuiltOnlyWhenTimeRunsOut() async throws {
        let built = Atomic(0)
        @Sendable func late() -> any Error {
            built.add(1, ordering: .relaxed)
            return Late()
        }
        #expect(try await withTimeout(.seconds(30), orThrow: late()) { 7 } == 7)
        let builtOnSuccess = built.load(ordering: .relaxed)
        #expect(builtOnSuccess == 0)
        let gate = Gate()
        await #expect(throws: Late.self) {
            try await withTimeout(.milliseconds(50), orThrow: late()) { await gate.wait() }
        }
        let builtOnTimeout = built.load(ordering: .relaxed)
        #expect(builtOnTimeout == 1)
        gate.open()
    }

    @Test func aBodysErrorIsRethrown() async throws {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await withTimeout(.seconds(30), orThrow: Late()) { () async throws -> Int in throw Refused() }
        }
    }

    @Test func cancellingTheCallerEndsItsWaitAtOnceWhateverTheBodyDoes() async throws {
        let gate = Gate()
        let caller = Task {
            try await withTimeout(.seconds(600), orThrow: Late()) { await gate.wait() }
        }
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        gate.open()
    }
}
#endif
