import Dispatch
import Synchronization
import Tempo
import TempoLocks
import Testing

/// Many real threads against shared instances on the real `SystemScheduler`. `.ci/run` runs this suite
/// under ThreadSanitizer as well (`--filter StressTests`), where any data race fails the run.
@Suite(.serialized) struct StressTests {
    static let threads = 8

    @Test func timersSurviveRandomOperationsFromEightThreads() {
        let seed = SeededGenerator.seed()
        let subjects = TimerStressSubject.standardSubjects()
        let report = StressHarness.run(
            subjects,
            threads: Self.threads,
            operationsPerThread: 25_000,
            timeLimit: .seconds(3),
            seed: seed
        )
        print("stress (TempoTimer, seed \(String(seed, radix: 16))): \(report)")
        #expect(report.violations.isEmpty, "seed \(String(seed, radix: 16)): \(report.violations)")
        #expect(report.stillAlive.isEmpty, "not released: \(report.stillAlive)")
        #expect(report.operations >= Self.threads * 100, "too few operations ran to prove anything")
        #expect(report.runs > 0, "no handler ran")
    }

    @Test func toolkitTypesSurviveRandomOperationsFromEightThreads() {
        let seed = SeededGenerator.seed()
        let report = StressHarness.run(
            ToolkitStressSubjects.all(),
            threads: Self.threads,
            operationsPerThread: 15_000,
            timeLimit: .seconds(3),
            seed: seed
        )
        print(
            "stress (registry, ticker, countdown, debouncer, throttler, wheel, async, seed \(String(seed, radix: 16))): \(report)"
        )
        #expect(report.violations.isEmpty, "seed \(String(seed, radix: 16)): \(report.violations)")
        #expect(report.stillAlive.isEmpty, "not released: \(report.stillAlive)")
        #expect(report.runs > 0, "no handler ran")
    }

    @Test func oneShotsStartedFromEightThreadsFireExactlyOnceEach() {
        let perThread = 100
        let fired = TempoMutex<[Int: Int]>([:])
        let early = Atomic<Int>(0)
        let released = TempoMutex<[WeakReference]>([])
        let deliveries: [TimerDelivery] = [.privateQueue, .immediate, .queue(.global())]
        RealThreads.run(count: Self.threads) { thread in
            var random = SeededGenerator(seed: UInt64(thread) &+ 17)
            for index in 0..<perThread {
                let id = thread * perThread + index
                let delay = Duration.microseconds(random.int(1...500))
                let clock = TimerClock.allCases.randomElement(using: &random)!
                let timer = try? TempoTimer(.after(delay, delivery: deliveries[id % 3], clock: clock)) { tick in
                    if clock != .wall, SystemScheduler.shared.now(clock) < tick.due { early.add(1, ordering: .relaxed) }
                    fired.withLock { $0[id, default: 0] += 1 }
                }.start()
                guard let timer else { continue }
                released.withLock { $0.append(WeakReference("one-shot \(id)", timer)) }
            }
        }
        let total = Self.threads * perThread
        let deadline = ContinuousClock.now + .seconds(30)
        while fired.withLock({ $0.count }) < total, ContinuousClock.now < deadline {
            pause(milliseconds: 2)
        }
        pause(milliseconds: 50)
        let counts = fired.withLock { $0 }
        #expect(counts.count == total, "\(total - counts.count) one-shots never fired")
        #expect(counts.values.allSatisfy { $0 == 1 }, "fired more than once: \(counts.filter { $0.value != 1 })")
        #expect(early.load(ordering: .relaxed) == 0)
        let alive = released.withLock { $0.filter(\.isAlive).map(\.name) }
        #expect(alive.isEmpty, "finished one-shots not released: \(alive.prefix(5))")
    }

    /// Issue #10: queries pruned `.finished` entries whose last tick was still queued, and the tick was lost
    /// (46-83 % of 1,000 one-shots before the fix).
    @Test func registryOneShotsFireExactlyOnceWhileOtherThreadsQueryTheRegistry() {
        let registry = TimerRegistry<String>()
        let schedulers = 4
        let perThread = 250
        let fired = TempoMutex<[Int: Int]>([:])
        let done = Atomic<Bool>(false)
        let failures = TempoMutex<[String]>([])
        RealThreads.run(count: schedulers + 2) { thread in
            if thread >= schedulers {
                // Two threads query the registry until the one-shots are all in.
                while !done.load(ordering: .relaxed) {
                    _ = registry.contains("one-shot \(Int.random(in: 0..<(schedulers * perThread)))")
                    _ = registry.count
                    _ = registry.keys
                    _ = registry.state(of: "one-shot 0")
                }
                return
            }
            var random = SeededGenerator(seed: UInt64(thread) &+ 101)
            for index in 0..<perThread {
                let id = thread * perThread + index
                do throws(TempoError) {
                    try registry.schedule("one-shot \(id)", .after(.milliseconds(random.int(1...20)))) { _ in
                        fired.withLock { $0[id, default: 0] += 1 }
                    }
                } catch {
                    failures.withLock { $0.append("schedule \(id) threw \(error)") }
                }
            }
            if thread == 0 {
                let total = schedulers * perThread
                let deadline = ContinuousClock.now + .seconds(30)
                while fired.withLock({ $0.count }) < total, ContinuousClock.now < deadline {
                    pause(milliseconds: 2)
                }
                done.store(true, ordering: .relaxed)
            }
        }
        pause(milliseconds: 50)
        let counts = fired.withLock { $0 }
        let total = schedulers * perThread
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(counts.count == total, "\(total - counts.count) of \(total) one-shots lost their tick")
        #expect(counts.values.allSatisfy { $0 == 1 }, "fired more than once: \(counts.filter { $0.value != 1 })")
        #expect(registry.count == 0)
    }

    @Test func noRunBeginsAfterCancelReturnsOnAnotherThread() {
        // One fast timer per canceller thread; the other threads fire it and start it only before the cancel.
        let report = StressHarness.run(
            (0..<4).map { _ in TimerStressSubject.cancelRace() },
            threads: Self.threads,
            operationsPerThread: 2_000,
            timeLimit: .seconds(2),
            seed: SeededGenerator.seed()
        )
        print("cancel race: \(report)")
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.stillAlive.isEmpty, "not released: \(report.stillAlive)")
    }
}

/// Sleeps the calling thread (real-time tests only).
func pause(milliseconds: Int) {
    usleep(useconds_t(milliseconds * 1_000))
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
