import Foundation
import Tempo
import TempoLocks
import TempoPlans
import TempoTesting
import Testing

/// Every plan cell of the table in the "Schedules and Handlers" article: each handler form on ``PlanTimer`` and on
/// ``PlanRegistry``, on virtual time (whose wall clock starts at 2026-01-01 00:00:00 UTC).
@Suite struct PlanHandlerMatrixTests {
    enum Owner: String, CaseIterable, Sendable { case timer, registry }
    enum Kind: String, CaseIterable, Sendable { case fire, timer, weak, mainActor }

    final class Target: Sendable {}

    final class Calls: Sendable {
        private let fires = TempoMutex<[Int]>([])
        var indexes: [Int] { fires.withLock { $0 } }
        func add(_ fire: PlanFire) { fires.withLock { $0.append(fire.index) } }
    }

    /// The plan timers a `.timer` handler received, by identity and with their state at the call (not the timers: a
    /// handler holding its own timer would be a cycle).
    final class Timers: Sendable {
        struct Seen: Sendable {
            let id: ObjectIdentifier
            let wasRunning: Bool
            let fireCount: Int
        }

        private let seen = TempoMutex<[Seen]>([])
        var all: [Seen] { seen.withLock { $0 } }
        func add(_ timer: PlanTimer) {
            let entry = Seen(
                id: ObjectIdentifier(timer), wasRunning: timer.state == .running, fireCount: timer.fireCount)
            seen.withLock { $0.append(entry) }
        }
    }

    /// Every second from the clock's wall start.
    static func everySecond() throws -> Plan {
        try Plan.every(.seconds(1), anchor: Date(timeIntervalSince1970: 1_767_225_600))
    }

    static func handler(_ kind: Kind, target: Target, calls: Calls, timers: Timers) -> PlanHandler {
        switch kind {
        case .fire: .fire { calls.add($0) }
        case .timer:
            .timer { timer, fire in
                timers.add(timer)
                calls.add(fire)
            }
        case .weak: .weak(target) { _, fire in calls.add(fire) }
        case .mainActor: .mainActor { calls.add($0) }
        }
    }

    @Test(arguments: Owner.allCases, Kind.allCases)
    func everyHandlerFormFiresAtEachDate(owner: Owner, kind: Kind) throws {
        let clock = VirtualClock()
        let calls = Calls()
        let target = Target()
        let seen = Timers()
        let handler = Self.handler(kind, target: target, calls: calls, timers: seen)
        let delivery: TimerDelivery = kind == .mainActor ? .privateQueue : .immediate
        var planTimer: PlanTimer?
        let registry = PlanRegistry<String>(scheduler: clock)
        switch owner {
        case .timer:
            planTimer = try PlanTimer(Self.everySecond(), delivery: delivery, scheduler: clock, handler: handler)
                .start()
        case .registry:
            try registry.schedule("k", Self.everySecond(), delivery: delivery, handler: handler)
            #expect(registry.contains("k"))
        }
        clock.advance(by: .milliseconds(999))
        #expect(calls.indexes.isEmpty, "\(owner) \(kind)")
        clock.advance(by: .seconds(1) + .milliseconds(1))
        #expect(calls.indexes == [1, 2], "\(owner) \(kind)")
        if kind == .timer {
            // The handler received the plan timer that fired: the one created, or the registry's entry.
            let timers = seen.all
            #expect(timers.count == 2)
            #expect(timers.allSatisfy { $0.wasRunning && $0.fireCount >= 1 })
            #expect(Set(timers.map(\.id)).count == 1)
            if let planTimer { #expect(timers.allSatisfy { $0.id == ObjectIdentifier(planTimer) }) }
        }
        planTimer?.cancel()
        registry.cancelAll()
        withExtendedLifetime(target) {}
    }

    @Test func aTimerAwareHandlerCanCancelItsPlanTimer() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let timer = try PlanTimer(
            Self.everySecond(), delivery: .immediate, scheduler: clock,
            handler: .timer { timer, fire in
                calls.add(fire)
                if fire.index == 2 { timer.cancel() }
            }
        ).start()
        clock.advance(by: .seconds(5))
        #expect(calls.indexes == [1, 2])
        #expect(timer.state == .cancelled)
    }

    @Test func aWeakTargetThatDiedCancelsThePlanTimerOnItsNextDate() throws {
        let clock = VirtualClock()
        let calls = Calls()
        var target: Target? = Target()
        let timer = try PlanTimer(
            Self.everySecond(), delivery: .immediate, scheduler: clock,
            handler: .weak(target!) { _, fire in calls.add(fire) }
        ).start()
        clock.advance(by: .seconds(1))
        #expect(calls.indexes == [1])
        target = nil
        #expect(timer.state == .running)
        clock.advance(by: .seconds(1))
        #expect(calls.indexes == [1])
        #expect(timer.state == .cancelled)
        clock.advance(by: .seconds(3))
        #expect(calls.indexes == [1])
    }

    @Test func aRegistryEntryLeavesAtOnceWhenItsWeakTargetDies() throws {
        let clock = VirtualClock()
        let calls = Calls()
        let registry = PlanRegistry<String>(scheduler: clock)
        var target: Target? = Target()
        try registry.schedule(
            "sync", Self.everySecond(), delivery: .immediate, handler: .weak(target!) { _, fire in calls.add(fire) })
        clock.advance(by: .seconds(1))
        #expect(calls.indexes == [1])
        #expect(registry.contains("sync"))
        target = nil
        #expect(!registry.contains("sync"))
        #expect(registry.count == 0)
        clock.advance(by: .seconds(3))
        #expect(calls.indexes == [1])
    }

    @Test func aMainActorHandlerRejectsADeliveryOffTheMainQueue() throws {
        let clock = VirtualClock()
        let error = #expect(throws: PlanError.self) {
            _ = try PlanTimer(Self.everySecond(), delivery: .immediate, scheduler: clock, handler: .mainActor { _ in })
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.value == "immediate")
        let registry = PlanRegistry<String>(scheduler: clock)
        let registryError = #expect(throws: PlanError.self) {
            try registry.schedule("k", Self.everySecond(), delivery: .immediate, handler: .mainActor { _ in })
        }
        #expect(registryError?.code == .invalidArgument)
        #expect(!registry.contains("k"))
    }

    @Test(arguments: [TimerDelivery.privateQueue, .queue(.main)])
    func aMainActorHandlerRunsOnTheMainQueue(delivery: TimerDelivery) throws {
        let clock = VirtualClock()
        let onMain = TempoMutex<[Bool]>([])
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        defer { DispatchQueue.main.setSpecific(key: key, value: nil) }
        let timer = try PlanTimer(
            Self.everySecond(), delivery: delivery, scheduler: clock,
            handler: .mainActor { _ in onMain.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true) } }
        ).start()
        clock.advance(by: .seconds(2))
        #expect(onMain.withLock { $0 } == [true, true])
        timer.cancel()
    }
}
