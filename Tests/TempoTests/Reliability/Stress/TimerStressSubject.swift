import Dispatch
import Synchronization
import Tempo
import TempoLocks

/// A shared `TempoTimer` on the real `SystemScheduler`, hammered by every public operation from many threads.
///
/// `release` drops the shared reference (and the weak target, for a target timer); the next operation makes
/// a fresh timer, so released timers keep running on their own until the target dies or the run finishes.
final class TimerStressSubject: StressSubject {
    struct Spec: Sendable {
        var name: String
        var interval: Duration
        var repeats: TimerRepeats = .forever
        var latePolicy: LateTickPolicy = .coalesce
        var delivery: TimerDelivery = .privateQueue
        var clock: TimerClock = .monotonic
        var leeway: Duration = .zero
        var weakTarget = false
        /// How often each operation is picked, by name (default 1; 0 leaves it out).
        var weights: [String: Int] = [:]
    }

    /// One live instance: the timer, its probe and what the test holds for it.
    private final class Slot: Sendable {
        let timer: TempoTimer
        let probe: HandlerProbe
        let target: Canary?
        let tokens = TempoMutex<[TimerObservation]>([])

        init(timer: TempoTimer, probe: HandlerProbe, target: Canary?) {
            self.timer = timer
            self.probe = probe
            self.target = target
        }
    }

    private static let sharedQueue = DispatchQueue(label: "tempo.tests.stress.shared")

    let spec: Spec
    private let current = TempoMutex<Slot?>(nil)
    private let created = TempoMutex<[(timer: WeakReference, probe: HandlerProbe)]>([])
    private let trackedObjects = TempoMutex<[WeakReference]>([])
    private let problems = TempoMutex<[String]>([])

    var name: String { spec.name }

    init(_ spec: Spec) { self.spec = spec }

    static func standardSubjects() -> [TimerStressSubject] {
        [
            .init(.init(name: "forever/burst/private", interval: .microseconds(100), latePolicy: .burst)),
            .init(
                .init(
                    name: "times(5)/global", interval: .microseconds(200), repeats: .times(5),
                    delivery: .queue(.global()))),
            .init(.init(name: "once/immediate", interval: .microseconds(50), repeats: .once, delivery: .immediate)),
            .init(
                .init(
                    name: "times(20)/skip/target", interval: .microseconds(100), repeats: .times(20), latePolicy: .skip,
                    weakTarget: true)),
            .init(
                .init(
                    name: "forever/continuous/shared", interval: .milliseconds(1), delivery: .queue(sharedQueue),
                    clock: .continuous, leeway: .microseconds(200))),
            .init(
                .init(
                    name: "forever/wall/immediate/target", interval: .microseconds(300), latePolicy: .burst,
                    delivery: .immediate, clock: .wall, weakTarget: true)),
        ]
    }

    /// A fast burst timer that threads mostly fire and cancel, and seldom restart.
    static func cancelRace() -> TimerStressSubject {
        TimerStressSubject(
            Spec(
                name: "cancel race", interval: .microseconds(20), latePolicy: .burst,
                weights: [
                    "fire": 6, "cancel": 3, "start": 1, "read": 1, "pause": 0, "resume": 0, "reset": 0,
                    "addObserver": 1, "removeObserver": 1, "setLeeway": 0, "release": 0,
                ]
            ))
    }

    // MARK: StressSubject

    var operations: [(name: String, run: @Sendable (inout SeededGenerator) -> Void)] {
        allOperations.flatMap { operation in
            Array(repeating: operation, count: spec.weights[operation.name] ?? 1)
        }
    }

    private var allOperations: [(name: String, run: @Sendable (inout SeededGenerator) -> Void)] {
        [
            ("start", { _ in self.revive { $0.start() } }),
            ("pause", { _ in self.slot().timer.pause() }),
            ("resume", { _ in self.slot().timer.resume() }),
            ("reset", { random in self.reset(&random) }),
            ("cancel", { _ in self.cancel(self.slot()) }),
            ("fire", { _ in self.slot().timer.fire() }),
            ("addObserver", { _ in self.addObserver() }),
            ("removeObserver", { random in self.removeObserver(&random) }),
            ("setLeeway", { random in self.setLeeway(&random) }),
            ("read", { _ in self.read() }),
            ("release", { _ in self.current.withLock { $0 = nil } }),
        ]
    }

    func checkStillWorks() -> [String] {
        let slot = slot()
        let before = slot.probe.runs
        // `start()` resumes a paused timer, restarts a finished or cancelled one, and leaves a running one alone.
        revive { $0.start() }
        // Under skip, a finite timer that wakes late for every slot finishes without a tick (as documented).
        let done = { slot.probe.runs > before || (self.spec.latePolicy == .skip && slot.timer.state == .finished) }
        let deadline = ContinuousClock.now + .seconds(120)
        while !done(), ContinuousClock.now < deadline {
            pause(milliseconds: 1)
        }
        guard !done() else { return [] }
        return ["\(name): no tick within 120 s of start() after the storm (state \(slot.timer.state))"]
    }

    func finish() {
        let slot = current.withLock { slot in
            defer { slot = nil }
            return slot
        }
        withExtendedLifetime(slot) {}
        for (reference, probe) in created.withLock({ $0 }) {
            guard let timer = reference.object as? TempoTimer else { continue }
            let began = probe.cancelBegan()
            timer.cancel()
            probe.cancelReturned(began)
        }
    }

    var probes: [HandlerProbe] { created.withLock { $0.map(\.probe) } }
    var violations: [String] { problems.withLock { $0 } }
    var tracked: [WeakReference] { trackedObjects.withLock { $0 } }

    // MARK: Operations

    private func fail(_ message: String) {
        problems.withLock { if $0.count < 20 { $0.append("\(name): \(message)") } }
    }

    private func revive(_ operation: (TempoTimer) -> Void) {
        let slot = slot()
        slot.probe.reviveBegan()
        operation(slot.timer)
        slot.probe.reviveEnded()
    }

    private func cancel(_ slot: Slot) {
        let began = slot.probe.cancelBegan()
        slot.timer.cancel()
        slot.probe.cancelReturned(began)
    }

    private func reset(_ random: inout SeededGenerator) {
        if random.chance(15) {
            let bad = TimerSequenceGenerator.badIntervals.randomElement(using: &random)!
            do throws(TempoError) {
                try slot().timer.reset(interval: bad)
                fail("reset(interval: \(bad)) did not throw")
            } catch {
                if error.code != .invalidInterval { fail("reset(interval: \(bad)) threw \(error)") }
            }
            return
        }
        let interval = spec.interval * random.int(1...3)
        // A one-shot has no interval to reset to: it starts its delay over, or moves its tick.
        let oneShot = spec.repeats == .once
        let withInterval = random.chance(50)
        revive { timer in
            do throws(TempoError) {
                if oneShot && withInterval {
                    try timer.reschedule(after: interval)
                } else {
                    try timer.reset(interval: withInterval ? interval : nil)
                }
            } catch {
                fail("reset(interval: \(interval)) threw \(error)")
            }
        }
    }

    private func addObserver() {
        let slot = slot()
        let canary = Canary()
        track("observer canary", canary)
        let token = slot.timer.addObserver { [probe = slot.probe] _ in
            probe.enter()
            withExtendedLifetime(canary) {}
            probe.leave()
        }
        slot.tokens.withLock { $0.append(token) }
    }

    private func removeObserver(_ random: inout SeededGenerator) {
        let slot = slot()
        let token = slot.tokens.withLock { tokens in tokens.isEmpty ? nil : tokens.remove(at: 0) }
        if let token, !slot.timer.removeObserver(token) {
            fail("removeObserver returned false for a registered observer")
        }
        _ = random.next()
    }

    private func setLeeway(_ random: inout SeededGenerator) {
        let timer = slot().timer
        if random.chance(20) {
            do throws(TempoError) {
                try timer.setLeeway(.nanoseconds(-1))
                fail("setLeeway(-1 ns) did not throw")
            } catch {
                if error.code != .invalidLeeway { fail("setLeeway(-1 ns) threw \(error)") }
            }
        } else {
            do throws(TempoError) { try timer.setLeeway(random.duration(upTo: .milliseconds(1))) } catch {
                fail("a valid leeway threw \(error)")
            }
        }
    }

    private func read() {
        let timer = slot().timer
        let fireCount = timer.fireCount
        if let total = spec.repeats.count, fireCount > total { fail("fireCount \(fireCount) exceeds \(total)") }
        if let total = spec.repeats.count, let remaining = timer.remainingCount, !(0...total).contains(remaining) {
            fail("remainingCount \(remaining) outside 0...\(total)")
        }
        if let left = timer.timeUntilNextTick, left < .zero { fail("timeUntilNextTick \(left) is negative") }
        _ = timer.state
    }

    // MARK: Instances

    private func track(_ what: String, _ object: AnyObject) {
        trackedObjects.withLock { $0.append(WeakReference("\(name) \(what)", object)) }
    }

    /// The shared instance, made on first use and after a release.
    private func slot() -> Slot {
        current.withLock { current in
            if let slot = current { return slot }
            let slot = makeSlot()
            current = slot
            return slot
        }
    }

    private func makeSlot() -> Slot {
        let probe = HandlerProbe(name: name)
        let canary = Canary()
        let target = spec.weakTarget ? Canary() : nil
        let own = WeakTimerBox()
        let tick: @Sendable (TimerTick) -> Void = { [self] tick in
            probe.enter(startsRun: true)
            self.check(tick, probe: probe)
            withExtendedLifetime(canary) {}
            self.actFromHandler(tick, own: own, probe: probe)
            probe.leave()
        }
        let timer: TempoTimer
        do throws(TempoError) {
            if let target {
                timer = try TempoTimer(
                    .every(
                        spec.interval, repeats: spec.repeats, leeway: spec.leeway, latePolicy: spec.latePolicy,
                        delivery: spec.delivery, clock: spec.clock), handler: .weak(target) { _, t in tick(t) })
            } else {
                timer = try TempoTimer(
                    .every(
                        spec.interval, repeats: spec.repeats, leeway: spec.leeway, latePolicy: spec.latePolicy,
                        delivery: spec.delivery, clock: spec.clock), tick)
            }
        } catch {
            preconditionFailure("stress spec \(name) is invalid: \(error)")
        }
        own.timer = timer
        timer.onStateChange { _ in
            probe.enter()
            probe.leave()
        }
        created.withLock { $0.append((WeakReference("\(name) timer", timer), probe)) }
        track("timer", timer)
        track("handler canary", canary)
        if let target { track("target", target) }
        return Slot(timer: timer, probe: probe, target: target)
    }

    private func check(_ tick: TimerTick, probe: HandlerProbe) {
        guard !tick.isManual else { return }
        if let total = spec.repeats.count, tick.index > total {
            probe.fail("tick \(tick.index) of a timer limited to \(total)")
        }
        if SystemScheduler.shared.now(spec.clock) < tick.due, spec.clock != .wall {
            probe.fail("tick \(tick.index) ran before its due instant \(tick.due)")
        }
        if tick.lateness < .zero || tick.missed < 0 { probe.fail("negative lateness or missed in \(tick)") }
    }

    /// Now and then a handler calls its own timer: fire, pause/resume or cancel, as user code may.
    private func actFromHandler(_ tick: TimerTick, own: WeakTimerBox, probe: HandlerProbe) {
        guard !tick.isManual, let timer = own.timer else { return }
        switch tick.index % 97 {
        case 13: timer.fire()
        case 29:
            timer.pause()
            timer.resume()
        case 71:
            let began = probe.cancelBegan()
            timer.cancel()
            probe.cancelReturned(began)
        default: break
        }
    }
}

/// A weak, late-bound reference from a handler to its own timer (a strong one would be a retain cycle).
final class WeakTimerBox: Sendable {
    private let reference = TempoMutex<WeakTimer>(WeakTimer())

    // @unchecked: safe because it is only read and written under the Mutex.
    private struct WeakTimer: @unchecked Sendable {
        weak var timer: TempoTimer?
    }

    var timer: TempoTimer? {
        get { reference.withLock { $0.timer } }
        set { reference.withLock { $0.timer = newValue } }
    }
}

extension TimerRepeats {
    /// The number of ticks, or `nil` for ``TimerRepeats/forever``.
    var count: Int? {
        switch kind {
        case .once: 1
        case .times(let n): n
        case .forever: nil
        }
    }
}
