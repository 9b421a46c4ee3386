import Foundation
import Synchronization
import Testing

@testable import Tempo

/// The threads Tempo starts carry their names (`tempo.monotonic`, `tempo.delivery`, ...), as `top -H`, `ps -L`,
/// debuggers and profilers show them. Until this suite, `DriverThread.start(name:_:)` dropped the name, so every
/// thread kept the name of the thread that started it (a Dispatch worker's, `oot.default-qos`). Linux: the names are
/// read back from `/proc/thread-self/comm`.
@Suite struct ThreadNameTests {
    /// The calling thread's name.
    private static func currentName() -> String? {
        #if os(Linux)
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #else
        nil
        #endif
    }

    /// The name a thread started by `DriverThread.start(name:_:)` reads for itself.
    private static func nameOfThreadStarted(as name: String) -> String? {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        DriverThread.start(name: name) {
            seen.withLock { $0 = currentName() }
            done.signal()
        }
        done.wait()
        return seen.withLock { $0 }
    }

    @Test(.enabled(if: currentName() != nil))
    func aThreadCarriesTheNameItWasStartedWith() {
        #expect(Self.nameOfThreadStarted(as: "tempo.names") == "tempo.names")
    }

    @Test(.enabled(if: currentName() != nil))
    func aLongNameIsCutToFifteenBytesOnACharacterBoundary() {
        #expect(Self.nameOfThreadStarted(as: "tempo.continuous") == "tempo.continuou")
        // "€" is three bytes: a fourth one would end at byte 18.
        #expect(Self.nameOfThreadStarted(as: "tempo.€€€€") == "tempo.€€€")
    }

    @Test(.enabled(if: currentName() != nil), .timeLimit(.minutes(1)))
    func aTimersDriverThreadIsNamedAfterItsClock() async throws {
        // The timerfd backend's threads; the Dispatch backend runs its alarms on Dispatch's threads.
        let scheduler = SystemScheduler(backend: .timerfd)
        let names = Mutex<[String]>([])
        let (fired, continuation) = AsyncStream.makeStream(of: Void.self)
        var timers: [TempoTimer] = []
        defer { for timer in timers { timer.cancel() } }
        for clock in TimerClock.allCases {
            timers.append(
                try TempoTimer(
                    .after(.milliseconds(1), delivery: .immediate, clock: clock), scheduler: scheduler
                ) { _ in
                    names.withLock { $0.append(Self.currentName() ?? "") }
                    continuation.yield()
                }.start())
        }
        var iterator = fired.makeAsyncIterator()
        for _ in TimerClock.allCases { await iterator.next() }
        #expect(Set(names.withLock { $0 }) == ["tempo.monotonic", "tempo.boottime", "tempo.wall"])
    }
}
