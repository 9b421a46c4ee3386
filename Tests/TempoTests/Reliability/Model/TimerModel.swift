import Tempo

/// A deliberately plain reference implementation of `TempoTimer`'s documented schedule, written from the doc
/// comments (not from `TimerStateMachine`), so that model-based tests can compare every delivered tick.
///
/// It keeps its own notion of virtual time (one instant per clock, moved exactly as `VirtualClock` moves
/// them) and the timer's schedule in the words of the documentation: tick `k` is due at
/// `anchor + (k - 1) · interval`; pause keeps the time left; resume shifts the grid; a wake finds the due
/// slots and the late-tick policy decides what is delivered.
struct TimerModel {
    /// Something a handler observed: a tick (with the id of the handler that saw it) or a state change.
    enum Event: Equatable, CustomStringConvertible {
        case tick(handler: Int, TimerTick)
        case state(TimerState)

        var description: String {
            switch self {
            case .tick(let handler, let tick): "h\(handler): \(tick)"
            case .state(let state): "state \(state)"
            }
        }
    }

    private(set) var interval: Duration
    private let repeatsOnce: Bool
    /// The interval the timer was created with (``reset(interval:)`` may change ``interval``).
    let initialInterval: Duration
    let total: Int?
    let first: FirstTick
    let policy: LateTickPolicy
    let clock: TimerClock
    private(set) var leeway: Duration

    private(set) var phase = TimerState.idle
    /// The due instant of tick 1 of the current schedule.
    private var anchor = TimerInstant.zero
    /// The index of the next scheduled tick (1-based).
    private(set) var next = 1
    private var pausedLeft = Duration.zero
    private(set) var fireCount = 0
    private var skippedSinceDelivery = 0
    private(set) var handlers: [Int] = [0]
    private var nextHandlerID = 1
    private(set) var now: [TimerClock: TimerInstant]
    /// Events produced since the last ``takeEvents()``.
    private var events: [Event] = []

    init(configuration: TimerSetup, now: [TimerClock: TimerInstant]) {
        interval = configuration.interval
        initialInterval = configuration.interval
        repeatsOnce = configuration.repeats == .once
        switch configuration.repeats.kind {
        case .once: total = 1
        case .times(let n): total = n
        case .forever: total = nil
        }
        first = configuration.first
        policy = configuration.latePolicy
        clock = configuration.clock
        leeway = configuration.leeway
        self.now = now
    }

    // MARK: Queries

    private var clockNow: TimerInstant { now[clock]! }

    private func due(_ index: Int) -> TimerInstant { anchor + interval * (index - 1) }

    var remainingCount: Int? { total.map { $0 - (next - 1) } }

    var timeUntilNextTick: Duration? {
        switch phase {
        case .running: max(.zero, due(next) - clockNow)
        case .paused: pausedLeft
        case .idle, .finished, .cancelled: nil
        }
    }

    /// A running timer has exactly one deadline armed on the scheduler; any other has none.
    var pendingActions: Int { phase == .running ? 1 : 0 }

    mutating func takeEvents() -> [Event] {
        defer { events.removeAll() }
        return events
    }

    // MARK: Operations

    /// Whether the timer was created with `repeats: .once` (a one-shot, whose schedule reports no interval).
    var isOneShot: Bool { repeatsOnce }

    private var firstDelay: Duration {
        if case .after(let delay) = first.kind { return delay }
        return interval
    }

    mutating func start() {
        switch phase {
        case .running: return
        case .paused: resume()
        case .idle, .finished, .cancelled:
            next = 1
            fireCount = 0
            skippedSinceDelivery = 0
            if case .at(let deadline) = first.kind {
                anchor = deadline.instant
            } else {
                anchor = clockNow + firstDelay
            }
            enter(.running)
        }
    }

    mutating func pause() {
        guard phase == .running else { return }
        pausedLeft = max(.zero, due(next) - clockNow)
        enter(.paused)
    }

    mutating func resume() {
        guard phase == .paused else { return }
        anchor = clockNow + pausedLeft - interval * (next - 1)
        enter(.running)
    }

    /// Returns `false` (and changes nothing) when the interval is invalid.
    mutating func reset(interval newInterval: Duration?) -> Bool {
        if let newInterval {
            // A one-shot has no interval to reset to.
            guard !isOneShot else { return false }
            guard newInterval >= .nanoseconds(1), newInterval <= TempoError.maximumDuration else { return false }
            interval = newInterval
        }
        next = 1
        fireCount = 0
        skippedSinceDelivery = 0
        // An `at:` one-shot is re-armed at its deadline; anything else one first delay from now.
        var resetFirst = clockNow + firstDelay
        if isOneShot, case .at(let deadline) = first.kind { resetFirst = deadline.instant }
        if phase == .paused {
            pausedLeft = max(.zero, resetFirst - clockNow)
        } else {
            anchor = resetFirst
            enter(.running)
        }
        return true
    }

    mutating func cancel() {
        enter(.cancelled)
    }

    mutating func fire() -> Bool {
        guard phase != .cancelled else { return false }
        deliver(TimerTick(index: next, due: clockNow, lateness: .zero, isManual: true))
        return true
    }

    mutating func setLeeway(_ newLeeway: Duration) -> Bool {
        guard newLeeway >= .zero, newLeeway <= TempoError.maximumDuration else { return false }
        leeway = newLeeway
        return true
    }

    mutating func addHandler() -> Int {
        defer { nextHandlerID += 1 }
        handlers.append(nextHandlerID)
        return nextHandlerID
    }

    mutating func removeHandler(_ id: Int) -> Bool {
        guard let index = handlers.firstIndex(of: id), id != 0 else { return false }
        handlers.remove(at: index)
        return true
    }

    // MARK: Time

    /// Every clock moves by `duration`; each time the timer's next tick falls due it wakes at that instant.
    mutating func advance(by duration: Duration) {
        let end = clockNow + duration
        while phase == .running, due(next) <= end {
            let instant = max(due(next), clockNow)
            let step = instant - clockNow
            for key in now.keys { now[key]! += step }
            wake(at: instant)
        }
        let rest = end - clockNow
        for key in now.keys { now[key]! += rest }
    }

    /// The machine sleeps: continuous and wall time move on, monotonic time stands still; then what is due runs.
    mutating func suspend(for duration: Duration) {
        now[.continuous]! += duration
        now[.wall]! += duration
        advance(by: .zero)
    }

    /// The calendar clock is set forward or back; then what is due runs.
    mutating func adjustWallClock(by offset: Duration) {
        now[.wall]! += offset
        advance(by: .zero)
    }

    /// The scheduler woke the timer at `instant`, at or after the next tick's due instant.
    private mutating func wake(at instant: TimerInstant) {
        let elapsed = (instant - anchor).attoseconds / interval.attoseconds
        var last = Int(clamping: elapsed) + 1
        if let total { last = min(last, total) }
        switch policy.kind {
        case .burst:
            for index in next...last {
                deliverScheduled(index: index, at: instant, missed: 0)
            }
        case .coalesce:
            deliverScheduled(index: last, at: instant, missed: last - next)
        case .skip:
            if last > next {
                skippedSinceDelivery += last - next + 1
            } else {
                deliverScheduled(index: next, at: instant, missed: skippedSinceDelivery)
                skippedSinceDelivery = 0
            }
        }
        next = last + 1
        if let total, next > total {
            enter(.finished)
        }
    }

    private mutating func deliverScheduled(index: Int, at instant: TimerInstant, missed: Int) {
        fireCount += 1
        // `overdue` counts from the earliest slot the tick stands for: the missed slots lie just before it.
        deliver(
            TimerTick(
                index: index, due: due(index), lateness: instant - due(index), missed: missed,
                overdue: instant - due(index - missed)))
    }

    private mutating func deliver(_ tick: TimerTick) {
        for handler in handlers {
            events.append(.tick(handler: handler, tick))
        }
    }

    private mutating func enter(_ newPhase: TimerState) {
        guard newPhase != phase else { return }
        phase = newPhase
        events.append(.state(newPhase))
    }
}

extension TimerInstant {
    fileprivate static func += (lhs: inout TimerInstant, rhs: Duration) {
        lhs = lhs + rhs
    }
}
