import Tempo
import TempoTesting

extension BadInput {
    /// The registry, shared ticker, countdown, debouncer, throttler and timing wheel.
    static var toolkitRows: [BadInput] {
        var rows: [BadInput] = [
            BadInput("TimerRegistry.schedule(\"\")", .invalidKey, value: "\"\"") {
                try TimerRegistry<String>(scheduler: VirtualClock()).schedule("", .every(.seconds(1))) { _ in }
            },
            BadInput("TimerRegistry.schedule(\"\", after:)", .invalidKey, value: "\"\"") {
                try TimerRegistry<String>(scheduler: VirtualClock()).schedule("", .after(.seconds(1))) { _ in }
            },
            BadInput("TimerRegistry<[Int]>.schedule([])", .invalidKey, value: "\"[]\"") {
                try TimerRegistry<[Int]>(scheduler: VirtualClock()).schedule([], .every(.seconds(1))) { _ in }
            },
            BadInput("TimerRegistry.schedule(target:) empty key", .invalidKey, value: "\"\"") {
                try TimerRegistry<String>(scheduler: VirtualClock()).schedule(
                    "", .every(.seconds(1)), handler: .weak(Canary()) { _, _ in })
            },
        ]
        for count in badCounts {
            rows += [
                BadInput("TimerRegistry.schedule(repeats: .times(\(count)))", .invalidCount, value: "\(count)") {
                    try TimerRegistry<String>(scheduler: VirtualClock()).schedule(
                        "k", .every(.seconds(1), repeats: .times(count))
                    ) { _ in }
                },
                BadInput("SharedTicker.subscribe(everyNth: \(count))", .invalidCount, value: "\(count)") {
                    _ = try SharedTicker(.every(.seconds(1)), scheduler: VirtualClock()).subscribe(everyNth: count) {
                        _ in
                    }
                },
                BadInput(
                    "SharedTicker.subscribe(handler: .weak(everyNth: \(count), None))", .invalidCount, value: "\(count)"
                ) {
                    _ = try SharedTicker(.every(.seconds(1)), scheduler: VirtualClock()).subscribe(
                        everyNth: count, handler: .weak(Canary()) { _, _ in })
                },
            ]
        }
        for interval in badIntervals {
            let value = interval.exactDescription
            rows += [
                BadInput("TimerRegistry.schedule(every: \(value))", .invalidInterval, value: value) {
                    try TimerRegistry<String>(scheduler: VirtualClock()).schedule("k", .every(interval)) { _ in }
                },
                BadInput("SharedTicker(.every(\(value)))", .invalidInterval, value: value) {
                    _ = try SharedTicker(.every(interval), scheduler: VirtualClock())
                },
                BadInput("Countdown(every: \(value))", .invalidInterval, value: value) {
                    _ = try Countdown(duration: .seconds(10), every: interval, scheduler: VirtualClock()) { _ in
                    } onFinish: {
                    }
                },
                BadInput("Throttler(every: \(value))", .invalidInterval, value: value) {
                    _ = try Throttler<Int>(every: interval, scheduler: VirtualClock()) { _ in }
                },
            ]
            // A debouncer's delay may be zero (it runs on the delivery's next turn); every other bad interval is a row.
            if interval != .zero {
                rows += [
                    BadInput("Debouncer(delay: \(value))", .invalidInterval, value: value) {
                        _ = try Debouncer<Int>(delay: interval, scheduler: VirtualClock()) { _ in }
                    },
                    BadInput("Debouncer.setDelay(\(value))", .invalidInterval, value: value) {
                        try Debouncer<Int>(delay: .seconds(1), scheduler: VirtualClock()) { _ in }.setDelay(interval)
                    },
                ]
            }
            // A countdown's duration is an amount of time, not a timer period: one below 1 ns is accepted (it
            // finishes on the first wake-up), so only the non-positive and oversized ones are rows here.
            if interval <= .zero || interval > TempoError.maximumDuration {
                rows += [
                    BadInput("Countdown(duration: \(value))", .invalidInterval, value: value) {
                        _ = try Countdown(duration: interval, scheduler: VirtualClock()) { _ in
                        } onFinish: {
                        }
                    },
                    BadInput("Countdown.add(\(value))", .invalidInterval, value: value) {
                        _ = try Countdown(duration: .seconds(10), scheduler: VirtualClock()) { _ in
                        } onFinish: {
                        }.add(interval)
                    },
                ]
            }
            // A wheel's delay may be zero (due at once), as a timer's may.
            if interval < .zero || interval > TempoError.maximumDuration {
                rows += [
                    BadInput("TimingWheel.schedule(after: \(value))", .invalidInterval, value: value) {
                        try TimingWheel(scheduler: VirtualClock()).schedule(after: interval) {}
                    },
                    BadInput("TimingWheel.reschedule(after: \(value))", .invalidInterval, value: value) {
                        let wheel = try TimingWheel(scheduler: VirtualClock())
                        try wheel.reschedule(try wheel.schedule(after: .seconds(1)) {}, after: interval)
                    },
                ]
            }
        }
        for tick in [
            Duration.zero, .nanoseconds(-1), Duration(attoseconds: 1_500_000_000),
            TempoError.maximumDuration + .nanoseconds(1),
        ] {
            rows.append(
                BadInput("TimingWheel(resolution: \(tick))", .invalidInterval, value: tick.exactDescription) {
                    _ = try TimingWheel(configuration: .init(resolution: tick), scheduler: VirtualClock())
                }
            )
        }
        for capacity in [-1, Int.min, 1 << 31] {
            rows.append(
                BadInput("TimingWheel(initialCapacity: \(capacity))", .invalidCount, value: "\(capacity)") {
                    _ = try TimingWheel(configuration: .init(initialCapacity: capacity), scheduler: VirtualClock())
                }
            )
        }
        for offset in [
            Duration.seconds(Int64.max), .zero - .seconds(Int64.max), TempoError.maximumDuration + .seconds(1),
        ] {
            let instant = TimerInstant(offset: offset)
            rows.append(
                BadInput("TimingWheel.schedule(at: \(instant))", .invalidInstant, value: "\(instant)") {
                    try TimingWheel(scheduler: VirtualClock()).schedule(at: instant) {}
                }
            )
        }
        for leeway in badLeeways {
            rows += [
                BadInput("SharedTicker(leeway: \(leeway))", .invalidLeeway, value: leeway.exactDescription) {
                    _ = try SharedTicker(.every(.seconds(1), leeway: leeway), scheduler: VirtualClock())
                },
                BadInput("Countdown(leeway: \(leeway))", .invalidLeeway, value: leeway.exactDescription) {
                    _ = try Countdown(duration: .seconds(1), leeway: leeway, scheduler: VirtualClock()) { _ in
                    } onFinish: {
                    }
                },
                BadInput("Debouncer(leeway: \(leeway))", .invalidLeeway, value: leeway.exactDescription) {
                    _ = try Debouncer<Int>(delay: .seconds(1), leeway: leeway, scheduler: VirtualClock()) { _ in }
                },
                BadInput("Throttler(leeway: \(leeway))", .invalidLeeway, value: leeway.exactDescription) {
                    _ = try Throttler<Int>(every: .seconds(1), leeway: leeway, scheduler: VirtualClock()) { _ in }
                },
            ]
        }
        return rows
    }
}

extension BadInput {
    /// Tick sequences, `TempoClock` and timeouts.
    static var asyncRows: [BadInput] {
        var rows: [BadInput] = []
        for interval in badIntervals {
            let value = interval.exactDescription
            rows += [
                BadInput("AsyncTickSequence(every: \(value))", .invalidInterval, value: value) {
                    _ = try AsyncTickSequence(every: interval, clock: ContinuousClock())
                },
                BadInput("Clock.ticks(every: \(value))", .invalidInterval, value: value) {
                    _ = try TempoClock(scheduler: VirtualClock()).ticks(every: interval)
                },
            ]
        }
        for count in badCounts {
            rows.append(
                BadInput("Clock.ticks(repeats: .times(\(count)))", .invalidCount, value: "\(count)") {
                    _ = try ContinuousClock().ticks(every: .seconds(1), repeats: .times(count))
                }
            )
        }
        for leeway in badLeeways {
            rows.append(
                BadInput("AsyncTickSequence(leeway: \(leeway))", .invalidLeeway, value: leeway.exactDescription) {
                    _ = try AsyncTickSequence(every: .seconds(1), leeway: leeway, clock: ContinuousClock())
                }
            )
        }
        return rows
    }
}
