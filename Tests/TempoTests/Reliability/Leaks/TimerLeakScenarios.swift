import Dispatch
import Synchronization
import Tempo
import TempoTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ends of a `TempoTimer`'s life, on virtual time and on the real scheduler.
extension LeakScenario {
    static let timerScenarios: [LeakScenario] = [
        virtual("cancelled running timer, its handlers and observers") { clock, tracker in
            let timer = try makeTracked(tracker, scheduler: clock)
            timer.start()
            clock.advance(by: .seconds(3))
            timer.cancel()
        },
        real("cancelled running timer on the real scheduler") { tracker in
            let timer = try makeTracked(tracker, interval: .microseconds(200))
            timer.start()
            usleep(2_000)
            timer.cancel()
        },
        virtual("finished one-shot nobody holds") { clock, tracker in
            let canary = tracker.canary("one-shot handler capture")
            let timer = try TempoTimer(.after(.seconds(1)), scheduler: clock) { _ in withExtendedLifetime(canary) {}
            }.start()
            tracker.track("one-shot", timer)
            clock.advance(by: .seconds(1))
        },
        real("finished one-shot on the real scheduler") { tracker in
            let canary = tracker.canary("one-shot handler capture")
            let done = DispatchSemaphore(value: 0)
            let timer = try TempoTimer(.after(.microseconds(100))) { _ in
                withExtendedLifetime(canary) {}
                done.signal()
            }.start()
            tracker.track("one-shot", timer)
            _ = done.wait(timeout: .now() + 10)
        },
        virtual("finished finite timer under every late policy") { clock, tracker in
            for policy in LateTickPolicy.allCases {
                let timer = try makeTracked(
                    tracker, repeats: .times(3), latePolicy: policy, clock: .continuous, scheduler: clock)
                timer.start()
                clock.suspend(for: .seconds(10))
            }
        },
        virtual("weak-target timer whose owner died") { clock, tracker in
            var owner: Canary? = tracker.canary("owner")
            let canary = tracker.canary("target handler capture")
            let timer = try TempoTimer(
                .every(.seconds(1)), scheduler: clock,
                handler: .weak(owner!) { _, _ in
                    withExtendedLifetime(canary) {}
                })
            tracker.track("target timer", timer).start()
            clock.advance(by: .seconds(1))
            owner = nil
            clock.advance(by: .seconds(1))
        },
        real("weak-target timer whose owner died mid-run, on the real scheduler") { tracker in
            var owner: Canary? = tracker.canary("owner")
            let ticked = DispatchSemaphore(value: 0)
            let timer = try TempoTimer(
                .every(.microseconds(100), latePolicy: .burst),
                handler: .weak(owner!) { _, _ in
                    ticked.signal()
                })
            tracker.track("target timer", timer).start()
            _ = ticked.wait(timeout: .now() + 10)
            owner = nil
        },
        virtual("paused timer dropped by its owner") { clock, tracker in
            let timer = try makeTracked(tracker, scheduler: clock)
            timer.start()
            clock.advance(by: .milliseconds(1_500))
            timer.pause()
        },
        real("paused timer dropped on the real scheduler") { tracker in
            let timer = try makeTracked(tracker, interval: .microseconds(100))
            timer.start()
            usleep(1_000)
            timer.pause()
        },
        virtual("idle timer never started") { clock, tracker in
            _ = try makeTracked(tracker, scheduler: clock)
        },
        real("timer that cancels itself from its handler") { tracker in
            let done = DispatchSemaphore(value: 0)
            let box = WeakTimerBox()
            let canary = tracker.canary("self-cancelling handler capture")
            let timer = try TempoTimer(.every(.microseconds(100))) { _ in
                withExtendedLifetime(canary) {}
                box.timer?.cancel()
                done.signal()
            }
            box.timer = timer
            tracker.track("self-cancelling timer", timer).start()
            _ = done.wait(timeout: .now() + 10)
        },
        real("manual fires queued on a blocked queue, then cancelled") { tracker in
            let queue = DispatchQueue(label: "tempo.tests.leaks.blocked")
            let gate = DispatchSemaphore(value: 0)
            queue.async { gate.wait() }
            let timer = try makeTracked(tracker, interval: .microseconds(50), delivery: .queue(queue))
            timer.start()
            for _ in 0..<20 { timer.fire() }
            usleep(1_000)
            timer.cancel()
            gate.signal()
        },
        virtual("removed observer is released while its timer runs on") { clock, tracker in
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock)
            let canary = tracker.canary("removed observer capture")
            let token = timer.addObserver { _ in withExtendedLifetime(canary) {} }
            timer.start()
            clock.advance(by: .seconds(1))
            _ = timer.removeObserver(token)
            // The running timer stays alive (the clock holds it); only the observer must be gone.
            tracker.atEnd { timer.cancel() }
        },
        virtual("replaced state handler is released") { clock, tracker in
            let timer = try TempoTimer(.every(.seconds(1)), scheduler: clock)
            let canary = tracker.canary("old state handler capture")
            timer.onStateChange { _ in withExtendedLifetime(canary) {} }
            timer.start()
            timer.onStateChange(nil)
            tracker.atEnd { timer.cancel() }
        },
    ]

    static func virtual(_ name: String, _ body: @escaping @Sendable (VirtualClock, LeakTracker) throws -> Void)
        -> LeakScenario
    {
        LeakScenario(name: name, realTime: false) { clock, tracker in try body(clock, tracker) }
    }

    static func real(_ name: String, _ body: @escaping @Sendable (LeakTracker) throws -> Void) -> LeakScenario {
        LeakScenario(name: name, realTime: true) { _, tracker in try body(tracker) }
    }

    /// A timer with a handler, an observer and a state handler, each capturing a tracked object.
    static func makeTracked(
        _ tracker: LeakTracker,
        interval: Duration = .seconds(1),
        repeats: TimerRepeats = .forever,
        latePolicy: LateTickPolicy = .coalesce,
        delivery: TimerDelivery = .privateQueue,
        clock: TimerClock = .monotonic,
        scheduler: any TimerScheduler = SystemScheduler.shared
    ) throws -> TempoTimer {
        let handlerCapture = tracker.canary("handler capture")
        let observerCapture = tracker.canary("observer capture")
        let stateCapture = tracker.canary("state handler capture")
        let timer = try TempoTimer(
            .every(interval, repeats: repeats, latePolicy: latePolicy, delivery: delivery, clock: clock),
            scheduler: scheduler
        ) { _ in withExtendedLifetime(handlerCapture) {} }
        timer.addObserver { _ in withExtendedLifetime(observerCapture) {} }
        timer.onStateChange { _ in withExtendedLifetime(stateCapture) {} }
        return tracker.track("timer", timer)
    }
}
