import Synchronization
import Tempo
import TempoLocks
import TempoTesting
import Testing

// The example of the article TimingWheelTimeouts.md (Tempo.docc), verbatim, and its test.

/// Closes connections that have been silent for `idle`.
final class IdleTimeouts: Sendable {
    let idle: Duration
    let wheel: TimingWheel
    private let reaper: Reaper

    /// Receives the timeouts: forgets the connection's handle and reports the connection.
    private final class Reaper: TimingWheelHandler {
        let handles = TempoMutex<[UInt64: TimingWheel.Handle]>([:])
        let onIdle: @Sendable (UInt64) -> Void

        init(onIdle: @escaping @Sendable (UInt64) -> Void) {
            self.onIdle = onIdle
        }

        func timerFired(value connection: UInt64) {
            handles.withLock { _ = $0.removeValue(forKey: connection) }
            onIdle(connection)
        }
    }

    init(
        idle: Duration,
        scheduler: any TimerScheduler = SystemScheduler.shared,
        onIdle: @escaping @Sendable (UInt64) -> Void
    ) throws {
        self.idle = idle
        reaper = Reaper(onIdle: onIdle)
        let configuration = TimingWheel.Configuration(resolution: .milliseconds(10))
        wheel = try TimingWheel(configuration: configuration, scheduler: scheduler, handler: reaper)
    }

    /// A connection opened: it times out `idle` from now unless it reads.
    func opened(_ connection: UInt64) throws {
        try reaper.handles.withLock { $0[connection] = try wheel.schedule(after: idle, value: connection) }
    }

    /// A connection read something: its timeout moves to `idle` from now.
    func didRead(_ connection: UInt64) throws {
        guard let handle = reaper.handles.withLock({ $0[connection] }) else { return }
        try wheel.reschedule(handle, after: idle)
    }

    /// A connection closed for another reason: forget its timeout.
    func closed(_ connection: UInt64) {
        if let handle = reaper.handles.withLock({ $0.removeValue(forKey: connection) }) {
            wheel.cancel(handle)
        }
    }
}

@Suite struct TimingWheelArticleTests {
    @Test func silentConnectionsCloseAfterThirtySecondsAndReadsKeepThemOpen() throws {
        let clock = VirtualClock()
        let closed = TempoMutex<[UInt64]>([])
        let timeouts = try IdleTimeouts(idle: .seconds(30), scheduler: clock) { id in
            closed.withLock { $0.append(id) }
        }
        try timeouts.opened(1)
        try timeouts.opened(2)
        clock.advance(by: .seconds(20))
        try timeouts.didRead(1)  // 1 now times out at 50 s
        clock.advance(by: .seconds(10) - .nanoseconds(1))
        #expect(closed.withLock { $0 } == [])  // just before 30 s
        clock.advance(by: .nanoseconds(1))
        #expect(closed.withLock { $0 } == [2])  // 2 was silent for 30 s
        clock.advance(to: TimerInstant(offset: .seconds(50)))
        #expect(closed.withLock { $0 } == [2, 1])
    }

    @Test func aClosedConnectionNeverTimesOut() throws {
        let clock = VirtualClock()
        let closed = TempoMutex<[UInt64]>([])
        let timeouts = try IdleTimeouts(idle: .seconds(30), scheduler: clock) { id in
            closed.withLock { $0.append(id) }
        }
        try timeouts.opened(7)
        timeouts.closed(7)
        clock.advance(by: .seconds(60))
        #expect(closed.withLock { $0 } == [])
        #expect(timeouts.wheel.count == 0)
    }
}
