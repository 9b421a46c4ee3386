extension TimerStateMachine {
    /// An arm request for the owner to hand to the scheduler.
    struct Arm {
        var deadline: TimerInstant
        var leeway: Duration
        var generation: UInt32
    }

    /// How the scheduler's arm changes.
    enum SchedulerChange {
        case none
        case arm(Arm)
        case disarm(ScheduledAction)
        case replace(ScheduledAction, with: Arm)
    }

    /// What the owner does once the lock is released: the scheduler change first, then the drain.
    struct Actions {
        var scheduler = SchedulerChange.none
        var startDrain = false

        static let none = Actions()

        /// Adds an arm request (after any disarm already in `self`).
        mutating func arm(_ arm: Arm?) {
            guard let arm else { return }
            switch scheduler {
            case .none, .arm: scheduler = .arm(arm)
            case .disarm(let old), .replace(let old, _): scheduler = .replace(old, with: arm)
            }
        }

        /// Adds a disarm (the timer has no arm request pending when this is called).
        mutating func disarm(_ action: ScheduledAction?) {
            guard let action else { return }
            scheduler = .disarm(action)
        }
    }
}
