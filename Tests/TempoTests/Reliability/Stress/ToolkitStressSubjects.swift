import Dispatch
import Synchronization
import Tempo

/// Stress subjects for the toolkit types, each on the real `SystemScheduler` with short intervals.
enum ToolkitStressSubjects {
    static func all() -> [any StressSubject] {
        [registry(), ticker(), countdown(), debouncer(), throttler(), wheel(), asyncSequences()]
    }

    /// A registry with three keys that threads schedule, replace, cancel, pause and resume.
    static func registry() -> ClosureSubject {
        let registry = TimerRegistry<String>()
        let keys = ["a", "b", "c"]
        let targets = Shared<[String: Canary]>([:])
        let recorder = SubjectRecorder()
        // One after-cancel probe per key: once `cancel(key)` returned (and no `schedule(key)` since), no run of
        // that key may begin. Old and new timers of a key may overlap while one replaces the other.
        let keyProbes = Dictionary(
            uniqueKeysWithValues: keys.map { ($0, recorder.probe("registry[\($0)]", checksOverlap: false)) })
        @Sendable func handler(_ key: String) -> TempoTimer.Handler {
            let own = recorder.probe("registry[\(key)] timer")
            let canary = recorder.track("registry handler capture", Canary())
            let keyProbe = keyProbes[key]!
            return { tick in
                keyProbe.enter(startsRun: true)
                own.enter()
                withExtendedLifetime(canary) {}
                if tick.lateness < .zero { own.fail("negative lateness") }
                own.leave()
                keyProbe.leave()
            }
        }
        @Sendable func schedule(_ key: String, _ random: inout SeededGenerator) {
            let probe = keyProbes[key]!
            probe.reviveBegan()
            defer { probe.reviveEnded() }
            do throws(TempoError) {
                switch random.int(0...3) {
                case 0: try registry.schedule(key, .every(.microseconds(100)), handler(key))
                case 1:
                    try registry.schedule(
                        key, .every(.microseconds(150), repeats: .times(5), latePolicy: .burst), handler(key))
                case 2: try registry.schedule(key, .after(.microseconds(random.int(1...300))), handler(key))
                default:
                    let target = recorder.track("registry target", Canary())
                    targets.update { $0[key] = target }
                    let run = handler(key)
                    try registry.schedule(
                        key, .every(.microseconds(200), delivery: .immediate),
                        handler: .weak(target) { _, tick in run(tick) })
                }
            } catch {
                recorder.fail("registry.schedule(\(key)) threw \(error)")
            }
        }
        return ClosureSubject(
            name: "TimerRegistry",
            recorder: recorder,
            operations: [
                ("schedule", { random in schedule(keys.randomElement(using: &random)!, &random) }),
                (
                    "cancel",
                    { random in
                        let key = keys.randomElement(using: &random)!
                        let probe = keyProbes[key]!
                        let began = probe.cancelBegan()
                        _ = registry.cancel(key)
                        probe.cancelReturned(began)
                    }
                ),
                ("pause", { random in _ = registry.pause(keys.randomElement(using: &random)!) }),
                ("resume", { random in _ = registry.resume(keys.randomElement(using: &random)!) }),
                (
                    "read",
                    { random in
                        let key = keys.randomElement(using: &random)!
                        _ = registry.state(of: key)
                        if let left = registry.timeUntilNextTick(of: key), left < .zero {
                            recorder.fail("negative timeUntilNextTick")
                        }
                        if registry.count > keys.count {
                            recorder.fail("registry.count \(registry.count) > \(keys.count)")
                        }
                        _ = registry.keys
                        _ = registry.contains(key)
                    }
                ),
                (
                    "releaseTarget",
                    { random in
                        let key = keys.randomElement(using: &random)!
                        let target = targets.update { $0.removeValue(forKey: key) }
                        withExtendedLifetime(target) {}
                    }
                ),
                (
                    "emptyKey",
                    { _ in
                        recorder.expectThrows("schedule(\"\")", .invalidKey) {
                            try registry.schedule("", .every(.seconds(1))) { _ in }
                        }
                    }
                ),
            ],
            finish: {
                for key in keys {
                    let probe = keyProbes[key]!
                    let began = probe.cancelBegan()
                    _ = registry.cancel(key)
                    probe.cancelReturned(began)
                }
                registry.cancelAll()
                targets.update { $0.removeAll() }
            }
        )
    }

    /// A shared ticker whose subscribers come and go (cancel, token release, owner death) while it pauses and resumes.
    static func ticker() -> ClosureSubject {
        let recorder = SubjectRecorder()
        let ticker = try! SharedTicker(.every(.microseconds(100), latePolicy: .burst))
        let runs = recorder.probe("SharedTicker subscribers")
        let tokens = Shared<[(TickerSubscription, HandlerProbe)]>([])
        let owners = Shared<[Canary]>([])
        @Sendable func handler(_ probe: HandlerProbe) -> TempoTimer.Handler {
            let canary = recorder.track("subscriber capture", Canary())
            return { _ in
                runs.enter()
                probe.enter(startsRun: true)
                withExtendedLifetime(canary) {}
                probe.leave()
                runs.leave()
            }
        }
        return ClosureSubject(
            name: "SharedTicker",
            recorder: recorder,
            operations: [
                (
                    "subscribe",
                    { random in
                        let probe = recorder.probe("subscription", checksOverlap: false)
                        guard let token = try? ticker.subscribe(everyNth: random.int(1...3), handler(probe)) else {
                            return recorder.fail("subscribe threw")
                        }
                        tokens.update { $0.append((token, probe)) }
                    }
                ),
                (
                    "subscribeOwner",
                    { _ in
                        let owner = recorder.track("subscriber owner", Canary())
                        let run = handler(recorder.probe("owner subscription", checksOverlap: false))
                        guard (try? ticker.subscribe(handler: .weak(owner) { _, tick in run(tick) })) != nil else {
                            return recorder.fail("subscribe(owner:) threw")
                        }
                        owners.update { $0.append(owner) }
                    }
                ),
                (
                    "cancel",
                    { _ in
                        guard let (token, probe) = tokens.update({ $0.isEmpty ? nil : $0.removeFirst() }) else {
                            return
                        }
                        let began = probe.cancelBegan()
                        token.cancel()
                        probe.cancelReturned(began)
                        if token.isActive { recorder.fail("a cancelled subscription is still active") }
                    }
                ),
                ("releaseToken", { _ in _ = tokens.update { $0.isEmpty ? nil : $0.removeLast() } }),
                ("releaseOwner", { _ in _ = owners.update { $0.isEmpty ? nil : $0.removeFirst() } }),
                ("pause", { _ in ticker.pause() }),
                ("resume", { _ in ticker.resume() }),
                (
                    "read",
                    { _ in
                        _ = ticker.subscriberCount
                        _ = ticker.isTicking
                        _ = ticker.isPaused
                    }
                ),
                (
                    "badEvery",
                    { _ in
                        recorder.expectThrows("subscribe(everyNth: 0)", .invalidCount) {
                            _ = try ticker.subscribe(everyNth: 0) { _ in }
                        }
                    }
                ),
            ],
            finish: {
                for (token, probe) in tokens.update({ list in
                    defer { list.removeAll() }
                    return list
                }) {
                    let began = probe.cancelBegan()
                    token.cancel()
                    probe.cancelReturned(began)
                }
                owners.update { $0.removeAll() }
                ticker.resume()
            }
        )
    }

    /// A countdown that threads start, pause, resume, cancel and extend.
    static func countdown() -> ClosureSubject {
        let recorder = SubjectRecorder()
        let probe = recorder.probe("Countdown")
        let starts = Atomic<Int>(0)
        let finishes = Atomic<Int>(0)
        let capture = Canary()
        let countdown = try! Countdown(duration: .milliseconds(2), every: .microseconds(200)) { remaining in
            probe.enter(startsRun: true)
            if remaining < .zero { probe.fail("negative remaining \(remaining)") }
            withExtendedLifetime(capture) {}
            probe.leave()
        } onFinish: {
            probe.enter(startsRun: true)
            finishes.add(1, ordering: .sequentiallyConsistent)
            probe.leave()
        }
        @Sendable func revive(_ body: () -> Void) {
            probe.reviveBegan()
            starts.add(1, ordering: .sequentiallyConsistent)
            body()
            probe.reviveEnded()
        }
        return ClosureSubject(
            name: "Countdown",
            recorder: recorder,
            operations: [
                ("start", { _ in revive { countdown.start() } }),
                ("resume", { _ in revive { countdown.resume() } }),
                ("pause", { _ in countdown.pause() }),
                (
                    "cancel",
                    { _ in
                        let began = probe.cancelBegan()
                        countdown.cancel()
                        probe.cancelReturned(began)
                    }
                ),
                ("add", { random in _ = try? countdown.add(.microseconds(random.int(1...500))) }),
                (
                    "badAdd",
                    { _ in
                        recorder.expectThrows("add(-1 ms)", .invalidInterval) {
                            _ = try countdown.add(.milliseconds(-1))
                        }
                    }
                ),
                (
                    "read",
                    { _ in
                        if countdown.remaining < .zero { recorder.fail("negative remaining") }
                        _ = countdown.phase
                        _ = countdown.snapshot()
                        if finishes.load(ordering: .sequentiallyConsistent)
                            > starts.load(ordering: .sequentiallyConsistent)
                        {
                            recorder.fail("onFinish ran more often than start()")
                        }
                    }
                ),
            ],
            stillWorks: {
                revive { countdown.start() }
                let deadline = ContinuousClock.now + .seconds(120)
                while countdown.phase != .finished, ContinuousClock.now < deadline { pause(milliseconds: 1) }
                return countdown.phase == .finished
                    ? [] : ["Countdown did not finish within 120 s of start() (\(countdown.phase))"]
            },
            finish: {
                let began = probe.cancelBegan()
                countdown.cancel()
                probe.cancelReturned(began)
            }
        )
    }

    /// A debouncer fed unique values: each runs at most once, and nothing runs after cancel.
    static func debouncer() -> ClosureSubject {
        let recorder = SubjectRecorder()
        // flush() runs on the caller's thread and may overlap a scheduled run (documented), so no overlap check.
        let probe = recorder.probe("Debouncer", checksOverlap: false)
        let seen = Shared<Set<Int>>([])
        let next = Atomic<Int>(0)
        let debouncer = try! Debouncer<Int>(delay: .microseconds(150)) { value in
            probe.enter(startsRun: true)
            if !seen.update({ $0.insert(value).inserted }) { probe.fail("value \(value) ran twice") }
            probe.leave()
        }
        return ClosureSubject(
            name: "Debouncer",
            recorder: recorder,
            operations: [
                (
                    "call",
                    { _ in
                        probe.reviveBegan()
                        debouncer.call(next.add(1, ordering: .relaxed).newValue)
                        probe.reviveEnded()
                    }
                ),
                (
                    "flush",
                    { _ in
                        probe.reviveBegan()
                        debouncer.flush()
                        probe.reviveEnded()
                    }
                ),
                (
                    "cancel",
                    { _ in
                        let began = probe.cancelBegan()
                        debouncer.cancel()
                        probe.cancelReturned(began)
                    }
                ),
                ("setDelay", { random in try? debouncer.setDelay(.microseconds(random.int(50...300))) }),
                (
                    "badDelay",
                    { _ in
                        recorder.expectThrows("setDelay(-1 ns)", .invalidInterval) {
                            try debouncer.setDelay(.nanoseconds(-1))
                        }
                    }
                ),
                ("read", { _ in _ = debouncer.isPending }),
            ],
            finish: {
                let began = probe.cancelBegan()
                debouncer.cancel()
                probe.cancelReturned(began)
            }
        )
    }

    /// A throttler on both edges fed unique values: runs never overlap and no value runs twice.
    static func throttler() -> ClosureSubject {
        let recorder = SubjectRecorder()
        let probe = recorder.probe("Throttler")
        let seen = Shared<Set<Int>>([])
        let next = Atomic<Int>(0)
        let throttler = try! Throttler<Int>(every: .microseconds(150), edge: .both) { value in
            probe.enter()
            if !seen.update({ $0.insert(value).inserted }) { probe.fail("value \(value) ran twice") }
            probe.leave()
        }
        return ClosureSubject(
            name: "Throttler",
            recorder: recorder,
            operations: [
                ("call", { _ in _ = throttler.call(next.add(1, ordering: .relaxed).newValue) }),
                ("cancel", { _ in _ = throttler.cancel() }),
                ("read", { _ in _ = throttler.isWindowOpen }),
            ],
            finish: { _ = throttler.cancel() }
        )
    }
}
