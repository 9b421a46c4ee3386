import Tempo
import TempoTesting

/// Draws random timer setups and operations from a seeded generator.
///
/// Time steps are biased towards the instants where bugs hide: exactly at the next deadline, one
/// nanosecond before it, zero, and many intervals at once (late ticks under each policy).
enum TimerSequenceGenerator {
    static func setup(_ random: inout SeededGenerator) -> TimerSetup {
        let interval = randomInterval(&random)
        let clock = TimerClock.allCases.randomElement(using: &random)!
        let monotonicStart = TimerInstant(offset: random.chance(50) ? .zero : random.duration(upTo: .seconds(100)))
        let now: TimerInstant
        switch clock {
        case .monotonic: now = monotonicStart
        case .continuous: now = .zero
        case .wall: now = VirtualClock.defaultWallStart
        }
        let repeats: TimerRepeats
        switch random.int(0...99) {
        case 0..<25: repeats = .once
        case 25..<60: repeats = .times(random.int(1...8))
        default: repeats = .forever
        }
        let first: FirstTick
        switch random.int(0...99) {
        case 0..<50: first = .afterInterval
        case 50..<75: first = .after(random.chance(30) ? .zero : random.duration(upTo: interval * 3))
        default: first = .at(TimerDeadline(now + interval * random.int(-6...6) / 2, clock: clock))
        }
        let delivery: ModelDelivery
        switch random.int(0...99) {
        case 0..<90: delivery = .immediate
        case 90..<95: delivery = .privateQueue
        default: delivery = .sharedQueue
        }
        return TimerSetup(
            interval: interval,
            repeats: repeats,
            first: first,
            leeway: random.chance(70) ? .zero : random.duration(upTo: .milliseconds(50)),
            latePolicy: LateTickPolicy.allCases.randomElement(using: &random)!,
            delivery: delivery,
            clock: clock,
            monotonicStart: monotonicStart
        )
    }

    static func randomInterval(_ random: inout SeededGenerator) -> Duration {
        switch random.int(0...99) {
        case 0..<25: .nanoseconds(random.int(1...10))
        case 25..<60: .microseconds(random.int(1...1_000))
        default: .milliseconds(random.int(1...100))
        }
    }

    static func operation(_ model: TimerModel, _ random: inout SeededGenerator) -> TimerOperation {
        let interval = model.interval
        switch random.int(0...99) {
        case 0..<34:
            return .advance(timeStep(model, &random))
        case 34..<42:
            return .start
        case 42..<49:
            return .pause
        case 49..<56:
            return .resume
        case 56..<62:
            switch random.int(0...99) {
            case 0..<40: return .reset(nil)
            case 40..<85:
                // Within a factor of 2 of the initial interval, so that a grid anchored long ago (`.at`) does not
                // owe millions of ticks after a switch to a tiny interval.
                let initial = model.initialInterval
                return .reset(initial / 2 + random.duration(upTo: initial + initial / 2) + .nanoseconds(1))
            default: return .reset(badIntervals.randomElement(using: &random)!)
            }
        case 62..<67:
            return .cancel
        case 67..<74:
            return .fire
        case 74..<77:
            return .setLeeway(random.chance(80) ? random.duration(upTo: .seconds(1)) : badLeeways.randomElement()!)
        case 77..<84:
            return .suspend(random.chance(20) ? interval * random.int(2...30) : random.duration(upTo: interval * 4))
        case 84..<89:
            let offset = random.duration(upTo: interval * 5)
            return .adjustWallClock(random.chance(50) ? offset : .zero - offset)
        case 89..<94:
            return .addObserver
        default:
            let known = model.handlers.count + 2
            return .removeObserver(random.int(1...known))
        }
    }

    private static func timeStep(_ model: TimerModel, _ random: inout SeededGenerator) -> Duration {
        let untilNext = model.timeUntilNextTick ?? model.interval
        switch random.int(0...9) {
        case 0: return .zero
        case 1, 2: return untilNext
        case 3: return max(.zero, untilNext - .nanoseconds(1))
        case 4: return untilNext + .nanoseconds(1)
        case 5: return model.interval * random.int(2...40)
        default: return random.duration(upTo: model.interval * 3)
        }
    }

    static let badIntervals: [Duration] = [
        .zero, .nanoseconds(-1), .seconds(-3), Duration(attoseconds: 999_999_999),
        TempoError.maximumDuration + .nanoseconds(1),
    ]

    static let badLeeways: [Duration] = [
        .nanoseconds(-1), .seconds(-1), TempoError.maximumDuration + .nanoseconds(1),
    ]
}
