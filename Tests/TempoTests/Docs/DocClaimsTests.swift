import Dispatch
import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Claims of the DocC articles that no other test checked (issue #43's audit, docs/claims-audit.md).
@Suite struct DocClaimsTests {
    /// DebounceAndThrottle: "A delay of zero runs the action on the delivery's next turn ... (on a `VirtualClock`,
    /// before ``Debouncer/call(_:)`` returns)".
    @Test func aZeroDelayDebouncerOnAVirtualClockRunsBeforeCallReturns() throws {
        let clock = VirtualClock()
        let runs = TempoMutex<[Int]>([])
        let debouncer = try Debouncer<Int>(delay: .zero, scheduler: clock) { value in
            runs.withLock { $0.append(value) }
        }
        debouncer.call(1)
        #expect(runs.withLock { $0 } == [1])
        debouncer.call(2)
        #expect(runs.withLock { $0 } == [1, 2])
        #expect(clock.pendingCount == 0)
    }

    /// TimerRegistryGuide: "An empty key (an empty `String`, `Substring` or `Array`) throws ... `invalidKey`"; the
    /// bad-input table covers `String` and `Array`.
    @Test func anEmptySubstringKeyThrowsInvalidKey() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<Substring>(scheduler: clock)
        let error = #expect(throws: TempoError.self) {
            try registry.schedule(Substring(""), .after(.seconds(1))) { _ in }
        }
        #expect(error?.code == .invalidKey)
        #expect(clock.pendingCount == 0)
    }

    /// OneShape: a stopwatch's `start()`, `pause()` and `resume()` answer whether the call changed its phase
    /// (`false` when it was already running).
    @Test func aStopwatchsStartPauseAndResumeAnswerWhetherThePhaseChanged() {
        let clock = VirtualClock()
        let stopwatch = Stopwatch(scheduler: clock)
        #expect(stopwatch.start())
        #expect(!stopwatch.start())
        #expect(!stopwatch.resume())
        #expect(stopwatch.pause())
        #expect(!stopwatch.pause())
        #expect(stopwatch.resume())
        #expect(!stopwatch.resume())
    }

    /// MigratingFromDispatchSourceTimer: the bridges to `DispatchTime` and `DispatchWallTime` "throw ``TempoError``
    /// for an instant Dispatch cannot hold".
    @Test func theDispatchBridgesThrowForAnInstantDispatchCannotHold() throws {
        let origin = #expect(throws: TempoError.self) { try DispatchTime(TimerInstant(offset: .zero)) }
        #expect(origin?.code == .invalidInstant)
        let before1970 = #expect(throws: TempoError.self) { try DispatchWallTime(TimerInstant(offset: .seconds(-1))) }
        #expect(before1970?.code == .invalidInstant)
        let tooLate = TimerInstant(offset: .nanoseconds(Int64.max) + .seconds(1))
        #expect(throws: TempoError.self) { try DispatchTime(tooLate) }
        #expect(try DispatchTime(TimerInstant(offset: .nanoseconds(5))).uptimeNanoseconds == 5)
    }

    /// TimerRegistryGuide: `cancel`, `cancelAll`, `contains`, `keys`, `count`, `pause` and `resume` "are safe from any
    /// thread, including from a handler of the same registry".
    @Test func aRegistryHandlerMayCallEveryOperationOfItsRegistry() throws {
        let clock = VirtualClock()
        let registry = TimerRegistry<String>(scheduler: clock)
        let seen = TempoMutex<[String]>([])
        try registry.schedule("other", .every(.seconds(10))) { _ in }
        try registry.schedule("probe", .after(.seconds(1), delivery: .immediate)) { _ in
            let paused = registry.pause("other")
            let resumed = registry.resume("other")
            let line = "\(registry.contains("other")) \(registry.keys.sorted()) \(registry.count) \(paused) \(resumed)"
            seen.withLock { $0.append(line) }
            _ = registry.cancel("other")
            registry.cancelAll()
        }
        clock.advance(by: .seconds(1))
        #expect(seen.withLock { $0 } == ["true [\"other\", \"probe\"] 2 true true"])
        #expect(registry.count == 0)
        #expect(clock.pendingCount == 0)
    }
}
