import Dispatch
import Tempo
import TempoTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ends of life of the registry, shared ticker, countdown, debouncer, throttler and timing wheel.
extension LeakScenario {
    static let toolkitScenarios: [LeakScenario] = [
        virtual("registry entry cancelled by key") { clock, tracker in
            let registry = TimerRegistry<String>(scheduler: clock)
            let capture = tracker.canary("registry handler capture")
            try registry.schedule("poll", .every(.seconds(1))) { _ in withExtendedLifetime(capture) {} }
            clock.advance(by: .seconds(2))
            registry.cancel("poll")
            tracker.atEnd { withExtendedLifetime(registry) {} }
        },
        virtual("registry one-shot that finished, and a replaced entry") { clock, tracker in
            let registry = TimerRegistry<String>(scheduler: clock)
            let first = tracker.canary("replaced entry capture")
            let second = tracker.canary("one-shot capture")
            try registry.schedule("a", .every(.seconds(1))) { _ in withExtendedLifetime(first) {} }
            try registry.schedule("a", .after(.seconds(1))) { _ in withExtendedLifetime(second) {} }
            clock.advance(by: .seconds(1))
            tracker.atEnd { withExtendedLifetime(registry) {} }
        },
        virtual("registry dropped with running entries") { clock, tracker in
            let registry = tracker.track("registry", TimerRegistry<String>(scheduler: clock))
            let capture = tracker.canary("registry handler capture")
            try registry.schedule("a", .every(.seconds(1))) { _ in withExtendedLifetime(capture) {} }
            try registry.schedule("b", .every(.seconds(2))) { _ in withExtendedLifetime(capture) {} }
            clock.advance(by: .seconds(3))
        },
        virtual("registry entry whose target died") { clock, tracker in
            let registry = TimerRegistry<String>(scheduler: clock)
            var target: Canary? = tracker.canary("registry target")
            try registry.schedule("a", .every(.seconds(1)), handler: .weak(target!) { _, _ in })
            clock.advance(by: .seconds(1))
            target = nil
            clock.advance(by: .seconds(1))
            tracker.atEnd { withExtendedLifetime(registry) {} }
        },
        virtual("ticker subscriptions cancelled, released and orphaned") { clock, tracker in
            let ticker = try SharedTicker(.every(.seconds(1)), scheduler: clock)
            let captures = (0..<3).map { tracker.canary("subscriber capture \($0)") }
            let cancelled = try ticker.subscribe { _ in withExtendedLifetime(captures[0]) {} }
            var released: TickerSubscription? = try ticker.subscribe { _ in withExtendedLifetime(captures[1]) {} }
            var owner: Canary? = tracker.canary("subscriber owner")
            _ = try ticker.subscribe(handler: .weak(owner!) { _, _ in withExtendedLifetime(captures[2]) {} })
            clock.advance(by: .seconds(1))
            cancelled.cancel()
            released = nil
            owner = nil
            clock.advance(by: .seconds(1))
            _ = released
            tracker.atEnd { withExtendedLifetime(ticker) {} }
        },
        virtual("ticker dropped with its tokens") { clock, tracker in
            let ticker = tracker.track("ticker", try SharedTicker(.every(.seconds(1)), scheduler: clock))
            let capture = tracker.canary("subscriber capture")
            let token = try ticker.subscribe { _ in withExtendedLifetime(capture) {} }
            clock.advance(by: .seconds(2))
            withExtendedLifetime(token) {}
        },
        virtual("countdown that finished") { clock, tracker in
            let capture = tracker.canary("countdown capture")
            let countdown = try Countdown(duration: .seconds(3), scheduler: clock) { _ in
                withExtendedLifetime(capture) {}
            } onFinish: {
                withExtendedLifetime(capture) {}
            }
            tracker.track("countdown", countdown).start()
            clock.advance(by: .seconds(3))
        },
        virtual("countdown cancelled and dropped") { clock, tracker in
            let capture = tracker.canary("countdown capture")
            let countdown = try Countdown(duration: .seconds(30), scheduler: clock) { _ in
                withExtendedLifetime(capture) {}
            } onFinish: {
            }
            tracker.track("countdown", countdown).start()
            clock.advance(by: .seconds(3))
            countdown.cancel()
        },
        virtual("running countdown dropped by its owner") { clock, tracker in
            let capture = tracker.canary("countdown capture")
            let countdown = try Countdown(duration: .seconds(30), scheduler: clock) { _ in
                withExtendedLifetime(capture) {}
            } onFinish: {
            }
            tracker.track("countdown", countdown).start()
            clock.advance(by: .seconds(3))
        },
        virtual("debouncer dropped with a pending call") { clock, tracker in
            let capture = tracker.canary("debouncer capture")
            let debouncer = try Debouncer<Int>(delay: .seconds(1), scheduler: clock) { _ in
                withExtendedLifetime(capture) {}
            }
            tracker.track("debouncer", debouncer).call(1)
            clock.advance(by: .milliseconds(500))
        },
        virtual("throttler dropped with an open window") { clock, tracker in
            let capture = tracker.canary("throttler capture")
            let throttler = try Throttler<Int>(every: .seconds(1), edge: .both, scheduler: clock) { _ in
                withExtendedLifetime(capture) {}
            }
            tracker.track("throttler", throttler).call(1)
            throttler.call(2)
        },
        virtual("timing wheel timers fired, cancelled, and dropped with the wheel") { clock, tracker in
            let wheel = tracker.track(
                "wheel", try TimingWheel(configuration: .init(resolution: .milliseconds(1)), scheduler: clock))
            let fired = tracker.canary("fired wheel timer capture")
            let cancelled = tracker.canary("cancelled wheel timer capture")
            let pending = tracker.canary("pending wheel timer capture")
            try wheel.schedule(after: .milliseconds(5)) { withExtendedLifetime(fired) {} }
            wheel.cancel(try wheel.schedule(after: .milliseconds(5)) { withExtendedLifetime(cancelled) {} })
            try wheel.schedule(after: .seconds(60)) { withExtendedLifetime(pending) {} }
            clock.advance(by: .milliseconds(10))
        },
        real("registry entries on the real scheduler, cancelled") { tracker in
            let registry = TimerRegistry<String>()
            let capture = tracker.canary("registry handler capture")
            try registry.schedule("a", .every(.microseconds(100))) { _ in withExtendedLifetime(capture) {} }
            usleep(2_000)
            registry.cancelAll()
        },
        real("timing wheel on the real scheduler, dropped") { tracker in
            let wheel = tracker.track("wheel", try TimingWheel(configuration: .init(resolution: .microseconds(100))))
            let capture = tracker.canary("wheel timer capture")
            for delay in [100, 200, 50_000_000] {
                try wheel.schedule(after: .microseconds(delay)) { withExtendedLifetime(capture) {} }
            }
            usleep(2_000)
        },
    ]
}

extension LeakScenario {
    static let asyncScenarios: [LeakScenario] = [
        real("tick loop cancelled, and a finite loop that ended") { tracker in
            let forever = tracker.canary("cancelled loop capture")
            let finite = tracker.canary("finite loop capture")
            let cancelled = Task.detached {
                for await _ in try! TempoClock.monotonic.ticks(every: .microseconds(100)) {
                    withExtendedLifetime(forever) {}
                }
            }
            let ended = Task.detached {
                for await _ in try! TempoClock.monotonic.ticks(every: .microseconds(100), repeats: .times(3)) {
                    withExtendedLifetime(finite) {}
                }
            }
            usleep(2_000)
            cancelled.cancel()
            tracker.track("cancelled loop task", TaskBox(cancelled))
            tracker.track("finite loop task", TaskBox(ended))
        },
        real("sleep cancelled long before its deadline") { tracker in
            let capture = tracker.canary("sleeping task capture")
            let task = Task.detached {
                try? await TempoClock.monotonic.sleep(until: TempoClock.monotonic.now + .seconds(3_600))
                withExtendedLifetime(capture) {}
            }
            usleep(1_000)
            task.cancel()
        },
    ]
}

/// Lets a test track a task's lifetime through a class it alone holds.
final class TaskBox: Sendable {
    let task: Task<Void, Never>
    init(_ task: Task<Void, Never>) { self.task = task }
}
