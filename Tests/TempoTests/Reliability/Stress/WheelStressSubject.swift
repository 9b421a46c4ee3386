import Synchronization
import Tempo

extension ToolkitStressSubjects {
    /// A timing wheel whose closure timers threads arm, cancel and push back: each fires at most once, never
    /// before its deadline, never after a `cancel` that returned `true`, and batches never overlap.
    static func wheel() -> ClosureSubject {
        let recorder = SubjectRecorder()
        let probe = recorder.probe("TimingWheel callbacks")
        let wheel = try! TimingWheel(configuration: .init(resolution: .microseconds(100)))
        let timers = Shared<[Int: WheelEntry]>([:])
        let fired = Shared<Set<Int>>([])
        let nextID = Atomic<Int>(0)
        let clock = wheel.configuration.clock
        @Sendable func arm(_ delay: Duration) {
            let id = nextID.add(1, ordering: .relaxed).newValue
            let canary = recorder.track("wheel timer capture", Canary())
            let notBefore = SystemScheduler.shared.now(clock) + delay
            // Registered before arming, so that the callback always finds its entry.
            timers.update { $0[id] = WheelEntry(notBefore: notBefore) }
            guard
                let handle = try? wheel.schedule(
                    after: delay,
                    { [canary] in
                        probe.enter()
                        withExtendedLifetime(canary) {}
                        let now = SystemScheduler.shared.now(clock)
                        let entry = timers.update { $0[id] }
                        if let entry, now < entry.notBefore {
                            probe.fail("wheel timer \(id) fired before its deadline")
                        }
                        if entry?.cancelled == true { probe.fail("wheel timer \(id) fired after cancel returned true") }
                        if !fired.update({ $0.insert(id).inserted }) { probe.fail("wheel timer \(id) fired twice") }
                        probe.leave()
                    })
            else { return recorder.fail("wheel.schedule(after: \(delay)) threw") }
            timers.update { $0[id]?.handle = handle }
        }
        @Sendable func randomTimer(_ random: inout SeededGenerator) -> (id: Int, handle: TimingWheel.Handle)? {
            let upper = nextID.load(ordering: .relaxed)
            guard upper > 0 else { return nil }
            let id = random.int(max(1, upper - 50)...upper)
            return timers.update { timers in timers[id]?.handle.map { (id, $0) } }
        }
        return ClosureSubject(
            name: "TimingWheel",
            recorder: recorder,
            operations: [
                ("schedule", { random in arm(.microseconds(random.int(1...2_000))) }),
                (
                    "cancel",
                    { random in
                        guard let (id, handle) = randomTimer(&random) else { return }
                        if wheel.cancel(handle) {
                            timers.update { $0[id]?.cancelled = true }
                        }
                    }
                ),
                (
                    "reschedule",
                    { random in
                        guard let (id, handle) = randomTimer(&random) else { return }
                        let delay = Duration.microseconds(random.int(1...2_000))
                        let notBefore = SystemScheduler.shared.now(clock) + delay
                        // Lower the bound before the call (never raise it): a fire racing the reschedule is judged against
                        // the earlier of the two deadlines.
                        timers.update { timers in
                            if let old = timers[id]?.notBefore { timers[id]?.notBefore = min(old, notBefore) }
                        }
                        _ = try? wheel.reschedule(handle, after: delay)
                    }
                ),
                (
                    "badDelay",
                    { _ in
                        recorder.expectThrows("wheel.schedule(after: -1 ns)", .invalidInterval) {
                            try wheel.schedule(after: .nanoseconds(-1)) {}
                        }
                    }
                ),
                (
                    "read",
                    { random in
                        _ = wheel.count
                        if let (_, handle) = randomTimer(&random) {
                            _ = wheel.isArmed(handle)
                            _ = wheel.deadline(of: handle)
                        }
                    }
                ),
            ],
            stillWorks: {
                let before = fired.update { $0.count }
                arm(.microseconds(500))
                let deadline = ContinuousClock.now + .seconds(120)
                while fired.update({ $0.count }) <= before, ContinuousClock.now < deadline { pause(milliseconds: 1) }
                return fired.update({ $0.count }) > before
                    ? [] : ["TimingWheel: nothing fired within 120 s after the storm"]
            },
            finish: {
                for handle in timers.update({ $0.values.compactMap(\.handle) }) { wheel.cancel(handle) }
            }
        )
    }
}

/// One stressed wheel timer: its handle once armed, the earliest instant it may fire, and whether a cancel
/// that returned `true` disarmed it.
struct WheelEntry: Sendable {
    var handle: TimingWheel.Handle?
    var notBefore: TimerInstant
    var cancelled = false
}
