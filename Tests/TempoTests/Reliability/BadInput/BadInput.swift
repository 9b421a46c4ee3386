import Tempo
import TempoTesting
import Testing

/// One call of a public entry point with one invalid value, and the typed error it must throw.
struct BadInput: CustomTestStringConvertible, Sendable {
    /// The entry point and the bad value, for example `once(after:) delay -1.0 seconds`.
    let name: String
    let code: TempoError.Code
    /// The rendering of the bad value that the error must carry in ``TempoError/value`` and its message.
    let value: String
    let call: @Sendable () throws -> Void

    var testDescription: String { name }

    init(_ name: String, _ code: TempoError.Code, value: String, _ call: @escaping @Sendable () throws -> Void) {
        self.name = name
        self.code = code
        self.value = value
        self.call = call
    }

    /// Every table, over every type. Adding a type means adding its rows here.
    static var all: [BadInput] { timerRows + parserRows + errorHelperRows + toolkitRows + asyncRows }

    // MARK: Values

    static let badIntervals: [Duration] = [
        .zero, .nanoseconds(-1), .seconds(-5), Duration(attoseconds: 1), Duration(attoseconds: 999_999_999),
        TempoError.maximumDuration + .nanoseconds(1), .seconds(Int64.max), .seconds(Int64.min),
    ]

    static let badLeeways: [Duration] = [
        .nanoseconds(-1), .seconds(-1), TempoError.maximumDuration + .nanoseconds(1), .seconds(Int64.max),
        .seconds(Int64.min),
    ]

    static let badCounts: [Int] = [0, -1, Int.min]

    static let badFirstDelays: [Duration] = [
        .nanoseconds(-1), .seconds(-1), TempoError.maximumDuration + .nanoseconds(1), .seconds(Int64.min),
    ]

    static let badSeconds: [Double] = [
        .nan, -.nan, .infinity, -.infinity, 0, -0.0, -0.5, -.greatestFiniteMagnitude, 1e300, 9.3e9,
        .greatestFiniteMagnitude, .leastNonzeroMagnitude, 1e-10,
    ]
}

extension BadInput {
    /// The same bad values through every way of making or changing a timer.
    static var timerRows: [BadInput] {
        var rows: [BadInput] = []
        for interval in badIntervals {
            let value = interval.exactDescription
            rows += [
                BadInput("init(_: .every) interval \(value)", .invalidInterval, value: value) {
                    _ = try TempoTimer(.every(interval), scheduler: VirtualClock())
                },
                BadInput("init(every:target:) interval \(value)", .invalidInterval, value: value) {
                    _ = try TempoTimer(
                        .every(interval), scheduler: VirtualClock(), handler: .weak(Canary()) { _, _ in })
                },
                BadInput("reset(interval:) \(value)", .invalidInterval, value: value) {
                    let timer = try TempoTimer(.every(.seconds(1)), scheduler: VirtualClock())
                    timer.start()
                    defer { timer.cancel() }
                    try timer.reset(interval: interval)
                },
                BadInput("registry schedule(_:_:) interval \(value)", .invalidInterval, value: value) {
                    try TimerRegistry<String>(scheduler: VirtualClock()).schedule("k", .every(interval)) { _ in }
                },
            ]
        }
        for count in badCounts {
            rows += [
                BadInput("init(every:repeats:) .times(\(count))", .invalidCount, value: "\(count)") {
                    _ = try TempoTimer(.every(.seconds(1), repeats: .times(count)), scheduler: VirtualClock())
                },
                BadInput("init(every:target:repeats:) .times(\(count))", .invalidCount, value: "\(count)") {
                    _ = try TempoTimer(
                        .every(.seconds(1), repeats: .times(count)), handler: .weak(Canary()) { _, _ in })
                },
                BadInput("init(seconds:repeats:) .times(\(count))", .invalidCount, value: "\(count)") {
                    _ = try TempoTimer(.every(.seconds(1), repeats: .times(count)), scheduler: VirtualClock())
                },
            ]
        }
        for leeway in badLeeways {
            let value = leeway.exactDescription
            rows += [
                BadInput("setLeeway(_:) \(value)", .invalidLeeway, value: value) {
                    try TempoTimer(.every(.seconds(1)), scheduler: VirtualClock()).setLeeway(leeway)
                },
                BadInput("once(after:leeway:) \(value)", .invalidLeeway, value: value) {
                    _ = try TempoTimer(.after(.seconds(1), leeway: leeway), scheduler: VirtualClock()) { _ in }.start()
                },
                BadInput("once(at:leeway:) \(value)", .invalidLeeway, value: value) {
                    let clock = VirtualClock()
                    _ = try TempoTimer(
                        .at(.monotonic(clock.now(.monotonic) + .seconds(1)), leeway: leeway), scheduler: clock
                    ) {
                        _ in
                    }.start()
                },
                BadInput("init(every:target:leeway:) \(value)", .invalidLeeway, value: value) {
                    _ = try TempoTimer(.every(.seconds(1), leeway: leeway), handler: .weak(Canary()) { _, _ in })
                },
                BadInput("init(_: .every leeway:) \(value)", .invalidLeeway, value: value) {
                    _ = try TempoTimer(.every(.seconds(1), leeway: leeway), scheduler: VirtualClock())
                },
            ]
        }
        // A delay (the time until a tick) may be zero, an interval may not: one-shots take the first-delay values.
        for delay in badFirstDelays {
            let value = delay.exactDescription
            rows += [
                BadInput("init(_: .after) delay \(value)", .invalidInterval, value: value) {
                    _ = try TempoTimer(.after(delay), scheduler: VirtualClock())
                },
                BadInput("once(after:) delay \(value)", .invalidInterval, value: value) {
                    _ = try TempoTimer(.after(delay), scheduler: VirtualClock()) { _ in }.start()
                },
                BadInput("registry schedule(_:_:) delay \(value)", .invalidInterval, value: value) {
                    try TimerRegistry<String>(scheduler: VirtualClock()).schedule("k", .after(delay)) { _ in }
                },
                BadInput("init(every:first: .after) \(value)", .invalidInterval, value: value) {
                    _ = try TempoTimer(.every(.seconds(1), first: .after(delay)), scheduler: VirtualClock())
                },
                BadInput("init(every:target:first: .after) \(value)", .invalidInterval, value: value) {
                    _ = try TempoTimer(.every(.seconds(1), first: .after(delay)), handler: .weak(Canary()) { _, _ in })
                },
            ]
        }
        for seconds in badSeconds {
            rows.append(
                // 1e-10 s converts exactly (100,000,000 as) and is then below the timer's 1 ns minimum.
                BadInput(
                    "init(seconds:) \(seconds)", .invalidInterval,
                    value: seconds == 1e-10 ? "0.0000000001 seconds" : "\(seconds)"
                ) {
                    _ = try TempoTimer(.every(seconds: seconds), scheduler: VirtualClock())
                }
            )
        }
        for past in [Duration.nanoseconds(1), .seconds(10), .seconds(Int64.max)] {
            let clock = VirtualClock(monotonic: TimerInstant(offset: .seconds(20)))
            let deadline = clock.now(.monotonic) - past
            rows.append(
                BadInput("once(at:) \(past) in the past", .invalidInstant, value: "\(deadline)") {
                    _ = try TempoTimer(.at(.monotonic(deadline), ifPast: .throw), scheduler: clock) { _ in }.start()
                }
            )
        }
        for offset in [
            TempoError.maximumDuration / 2 + .nanoseconds(1), .zero - TempoError.maximumDuration / 2 - .nanoseconds(1),
            TempoError.maximumDuration,
            .seconds(Int64.min), Duration(attoseconds: .max), Duration(attoseconds: .min),
        ] {
            let instant = TimerInstant(offset: offset)
            rows += [
                BadInput("init(every:first: .at) \(instant)", .invalidInstant, value: "\(instant)") {
                    _ = try TempoTimer(.every(.seconds(1), first: .at(.monotonic(instant))), scheduler: VirtualClock())
                },
                BadInput("once(at:) \(instant)", .invalidInstant, value: "\(instant)") {
                    _ = try TempoTimer(.at(.monotonic(instant)), scheduler: VirtualClock()) { _ in }.start()
                },
            ]
        }
        for clock in TimerClock.allCases {
            let deadline = SystemScheduler.shared.now(clock) - .milliseconds(1)
            rows.append(
                BadInput("once(at:) 1 ms ago on the real \(clock) clock", .invalidInstant, value: "\(deadline)") {
                    _ = try TempoTimer(.at(TimerDeadline(deadline, clock: clock), ifPast: .throw)) { _ in }.start()
                }
            )
        }
        return rows
    }
}
