import Synchronization
import Tempo

extension ToolkitStressSubjects {
    /// Tick loops, sleeps and timeouts on `TempoClock`, started as tasks from many threads and cancelled from
    /// others: ticks are never early and strictly increasing, finite loops stop at their count, and every
    /// cancelled loop or sleep ends.
    static func asyncSequences() -> ClosureSubject {
        let recorder = SubjectRecorder()
        let tasks = Shared<[Task<Void, Never>]>([])
        let clock = TempoClock.monotonic
        // At most 24 live tasks (the oldest is cancelled to make room): thousands of loops ticking every 100 µs
        // would starve the 2-thread cooperative pool and prove nothing about the sequences.
        @Sendable func keep(_ task: Task<Void, Never>) {
            let evicted = tasks.update { tasks -> Task<Void, Never>? in
                tasks.append(task)
                return tasks.count > 24 ? tasks.removeFirst() : nil
            }
            evicted?.cancel()
        }
        @Sendable func loop(repeats: Int?, policy: LateTickPolicy) -> Task<Void, Never> {
            let capture = recorder.track("tick loop capture", Canary())
            return Task {
                guard
                    let ticks = try? clock.ticks(
                        every: .microseconds(100), repeats: repeats.map { .times($0) } ?? .forever, latePolicy: policy)
                else { return recorder.fail("ticks(every:) threw") }
                var last = 0
                for await tick in ticks {
                    withExtendedLifetime(capture) {}
                    if clock.now < tick.due { recorder.fail("tick \(tick.index) handed over before it was due") }
                    if tick.index <= last { recorder.fail("tick \(tick.index) after tick \(last)") }
                    if let repeats, tick.index > repeats { recorder.fail("tick \(tick.index) of a loop of \(repeats)") }
                    last = tick.index
                }
            }
        }
        return ClosureSubject(
            name: "AsyncTickSequence",
            recorder: recorder,
            operations: [
                (
                    "loop",
                    { random in
                        let task = loop(
                            repeats: random.chance(50) ? random.int(1...20) : nil,
                            policy: LateTickPolicy.allCases.randomElement(using: &random)!)
                        keep(task)
                    }
                ),
                (
                    "cancelLoop",
                    { random in
                        let task = tasks.update { $0.isEmpty ? nil : $0.remove(at: 0) }
                        task?.cancel()
                        _ = random.next()
                    }
                ),
                (
                    "sleep",
                    { random in
                        let delay = Duration.microseconds(random.int(1...500))
                        let task = Task {
                            let deadline = clock.now + delay
                            do {
                                try await clock.sleep(until: deadline)
                                if clock.now < deadline {
                                    recorder.fail("TempoClock.sleep returned before its deadline")
                                }
                            } catch {}
                        }
                        if random.chance(50) { task.cancel() }
                        keep(task)
                    }
                ),
                (
                    "timeout",
                    { random in
                        let work = Duration.microseconds(random.int(1...400))
                        let task = Task {
                            do {
                                _ = try await withTimeout(after: .microseconds(200), clock: clock) {
                                    try await clock.sleep(until: clock.now + work)
                                }
                            } catch is TimeoutError {
                            } catch is CancellationError {
                            } catch {
                                recorder.fail("withTimeout threw \(error)")
                            }
                        }
                        keep(task)
                    }
                ),
            ],
            stillWorks: {
                // A 3-tick loop ends after 1 to 3 ticks (a late first tick coalesces the others into it).
                let ticks = Atomic<Int>(0)
                let ended = Atomic<Bool>(false)
                let task = Task.detached {
                    for await _ in try! clock.ticks(every: .microseconds(100), repeats: .times(3)) {
                        ticks.add(1, ordering: .relaxed)
                    }
                    ended.store(true, ordering: .releasing)
                }
                let deadline = ContinuousClock.now + .seconds(120)
                while !ended.load(ordering: .acquiring), ContinuousClock.now < deadline { pause(milliseconds: 1) }
                task.cancel()
                let count = ticks.load(ordering: .relaxed)
                return ended.load(ordering: .acquiring) && (1...3).contains(count)
                    ? [] : ["AsyncTickSequence: a 3-tick loop did not end within 120 s (\(count) ticks)"]
            },
            finish: {
                for task in tasks.update({ list in
                    defer { list.removeAll() }
                    return list
                }) { task.cancel() }
            }
        )
    }
}
