import Tempo
import TempoLocks
import TempoTesting
import Testing

/// Every cell of the table in the "Schedules and Handlers" article: each schedule with each handler on each type.
@Suite struct ScheduleHandlerMatrixTests {
    enum Owner: String, CaseIterable, Sendable { case timer, registry, ticker }
    enum Shape: String, CaseIterable, Sendable { case every, after, at }
    enum Kind: String, CaseIterable, Sendable { case tick, timer, weak, mainActor }

    final class Target: Sendable {}

    final class Calls: Sendable {
        private let count = TempoMutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// The schedule of a shape: two ticks a second apart, or one tick a second from now.
    static func schedule(_ shape: Shape, on clock: VirtualClock, mainQueue: Bool) -> TimerSchedule {
        let delivery: TimerDelivery = mainQueue ? .queue(.main) : .immediate
        switch shape {
        case .every: return .every(.seconds(1), repeats: .times(2), delivery: delivery)
        case .after: return .after(.seconds(1), delivery: delivery)
        case .at: return .at(.monotonic(clock.now(.monotonic) + .seconds(1)), delivery: delivery)
        }
    }

    static func handler(_ kind: Kind, target: Target, calls: Calls) -> TimerHandler {
        switch kind {
        case .tick: .tick { _ in calls.add() }
        case .timer: .timer { _, _ in calls.add() }
        case .weak: .weak(target) { _, _ in calls.add() }
        case .mainActor: .mainActor { _ in calls.add() }
        }
    }

    @Test(arguments: Owner.allCases, Shape.allCases)
    func everyHandlerRunsOnEverySchedule(owner: Owner, shape: Shape) throws {
        for kind in Kind.allCases {
            let clock = VirtualClock()
            let calls = Calls()
            let target = Target()
            let schedule = Self.schedule(shape, on: clock, mainQueue: kind == .mainActor)
            let handler = Self.handler(kind, target: target, calls: calls)
            var keep: [AnyObject] = []
            switch owner {
            case .timer:
                keep.append(try TempoTimer(schedule, scheduler: clock, handler: handler).start())
            case .registry:
                let registry = TimerRegistry<String>(scheduler: clock)
                try registry.schedule("k", schedule, handler: handler)
                keep.append(registry)
            case .ticker:
                guard shape == .every else {
                    // A shared ticker ticks for as long as it has subscribers: one-shots are a typed error.
                    let error = #expect(throws: TempoError.self) { _ = try SharedTicker(schedule, scheduler: clock) }
                    #expect(error?.code == .invalidArgument)
                    continue
                }
                let ticker = try SharedTicker(
                    .every(.seconds(1), delivery: schedule.delivery), scheduler: clock)
                keep.append(try ticker.subscribe(handler: handler))
            }
            clock.advance(by: .milliseconds(999))
            #expect(calls.value == 0, "\(owner) \(shape) \(kind)")
            clock.advance(by: .seconds(1) + .milliseconds(1))
            let expected = shape == .every ? 2 : 1
            #expect(calls.value == expected, "\(owner) \(shape) \(kind)")
            withExtendedLifetime((keep, target)) {}
        }
    }

    @Test func aMainActorHandlerRejectsADeliveryOffTheMainQueue() throws {
        let clock = VirtualClock()
        let error = #expect(throws: TempoError.self) {
            _ = try TempoTimer(
                .every(.seconds(1), delivery: .immediate), scheduler: clock, handler: .mainActor { _ in })
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.value == "immediate")
    }
}
