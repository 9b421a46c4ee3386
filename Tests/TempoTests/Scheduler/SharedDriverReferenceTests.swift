import Testing

@testable import Tempo

/// A timer on ``SystemScheduler/shared`` holds its clock driver without a reference count (the shared scheduler is
/// never released); a timer on a scheduler of its own holds a counted reference, which keeps the driver running
/// after the caller let go of that scheduler.
@Suite struct SharedDriverReferenceTests {
    @Test func onlyTheSharedSchedulersDriversAreHeldUncounted() throws {
        let shared = try TempoTimer(.after(.seconds(60))) { _ in }
        let sharedInline = try TempoTimer(.after(.seconds(60), delivery: .immediate)) { _ in }
        let own = SystemScheduler()
        let ownTimer = try TempoTimer(.after(.seconds(60)), scheduler: own) { _ in }
        let ownInline = try TempoTimer(.after(.seconds(60), delivery: .immediate), scheduler: own) { _ in }
        #expect(
            [shared, sharedInline, ownTimer, ownInline].map { Self.name($0.engine) }
                == ["sharedPool", "sharedInline", "systemPool", "systemInline"])
        #expect(
            shared.unretainedDriver?.toOpaque() == SystemScheduler.shared.unretainedDriver(for: .monotonic).toOpaque())
        #expect(ownTimer.unretainedDriver?.toOpaque() == own.unretainedDriver(for: .monotonic).toOpaque())
        guard case .privateQueue = shared.currentDelivery.kind, case .immediate = sharedInline.currentDelivery.kind
        else {
            Issue.record("the delivery read back from the engine")
            return
        }
        #expect(shared.clock == .monotonic && ownTimer.clock == .monotonic)
    }

    /// A scheduler of another type is never taken for ``SystemScheduler``, even one whose value starts with a
    /// ``SystemScheduler`` reference, as the existential's first word (the timer reads the type from the container).
    @Test func aWrapperAroundTheSystemSchedulerIsAnotherScheduler() throws {
        let wrapper = WrappingScheduler(inner: SystemScheduler.shared, extra: 7, more: 9)
        let timer = try TempoTimer(.after(.seconds(60)), scheduler: wrapper) { _ in }
        #expect(Self.name(timer.engine) == "other")
        #expect(timer.unretainedDriver == nil)
        timer.start()
        #expect(timer.state == .running)
        timer.cancel()
        #expect(timer.state == .cancelled)
    }

    /// Three words, stored inline in an existential, the first of them the shared scheduler.
    private struct WrappingScheduler: TimerScheduler {
        let inner: SystemScheduler
        let extra: Int
        let more: Int

        func now(_ clock: TimerClock) -> TimerInstant { inner.now(clock) }

        func schedule(
            at deadline: TimerInstant, leeway: Duration, clock: TimerClock, _ action: @escaping @Sendable () -> Void
        ) -> ScheduledAction {
            inner.schedule(at: deadline, leeway: leeway, clock: clock, action)
        }

        func cancel(_ action: ScheduledAction) { inner.cancel(action) }
    }

    private static func name(_ engine: TempoTimer.Engine) -> String {
        switch engine {
        case .sharedPool: "sharedPool"
        case .sharedInline: "sharedInline"
        case .systemPool: "systemPool"
        case .systemInline: "systemInline"
        case .systemQueue: "systemQueue"
        case .other: "other"
        }
    }

    @Test(.timeLimit(.minutes(2))) func aTimerKeepsTheDriverOfAReleasedSchedulerRunning() async throws {
        let (fired, continuation) = AsyncStream.makeStream(of: Int.self)
        weak var released: SystemScheduler?
        let timer: TempoTimer
        do {
            let own = SystemScheduler()
            released = own
            timer = try TempoTimer(.every(.milliseconds(1), repeats: .times(3)), scheduler: own) { tick in
                continuation.yield(tick.index)
            }
        }
        #expect(released == nil, "the timer must keep the driver, not the scheduler")
        timer.start()
        defer { timer.cancel() }
        var seen: [Int] = []
        for await index in fired {
            seen.append(index)
            if index == 3 { break }
        }
        #expect(seen.last == 3)
    }
}
