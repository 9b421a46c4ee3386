extension TimerInstruments {
    /// Where a timer's handlers ran, or what a stall held.
    ///
    /// A struct with static members rather than an enum, so that a later version can add a lane: compare with `==`.
    public struct Lane: Hashable, Sendable, CustomStringConvertible {
        /// The lanes, for Tempo's own exhaustive switches.
        package enum Kind: Hashable, Sendable {
            case driverThread
            case deliveryPool
            case queue
            case scheduler
        }

        /// Which lane this is.
        package let kind: Kind

        package init(kind: Kind) {
            self.kind = kind
        }

        /// A driver thread of ``SystemScheduler``: ``TimerDelivery/immediate`` handlers, scheduled actions, and the
        /// first default-delivery mailbox of a wake (a manual fire of an immediate timer runs on its caller).
        public static let driverThread = Lane(kind: .driverThread)
        /// A thread of Tempo's delivery pool (``TimerDelivery/privateQueue``).
        public static let deliveryPool = Lane(kind: .deliveryPool)
        /// A Dispatch queue of yours (``TimerDelivery/queue(_:)``).
        public static let queue = Lane(kind: .queue)
        /// Delivery through another ``TimerScheduler`` than ``SystemScheduler`` (a `VirtualClock` in tests).
        public static let scheduler = Lane(kind: .scheduler)

        /// `driver thread`, `delivery pool`, `queue` or `scheduler`.
        public var description: String {
            switch kind {
            case .driverThread: "driver thread"
            case .deliveryPool: "delivery pool"
            case .queue: "queue"
            case .scheduler: "scheduler"
            }
        }
    }

    /// A tick about to be handed to a timer's handlers.
    public struct TickEvent: Sendable {
        /// The timer's label, or `nil` for an unlabeled timer.
        public let label: TimerLabel?
        /// The timer's clock.
        public let clock: TimerClock
        /// Where the handlers run.
        public let lane: Lane
        /// The tick: its ``TimerTick/lateness``, ``TimerTick/overdue`` and ``TimerTick/missed`` count.
        public let tick: TimerTick

        /// Creates an event (Tempo makes them; this is for testing instruments).
        ///
        /// - Parameters:
        ///   - label: The timer's label.
        ///   - clock: The timer's clock.
        ///   - lane: Where the handlers run.
        ///   - tick: The tick.
        public init(label: TimerLabel?, clock: TimerClock, lane: Lane, tick: TimerTick) {
            self.label = label
            self.clock = clock
            self.lane = lane
            self.tick = tick
        }
    }

    /// A timer's handlers returned from one tick.
    public struct HandlerEvent: Sendable {
        /// The timer's label, or `nil`.
        public let label: TimerLabel?
        /// The timer's clock.
        public let clock: TimerClock
        /// Where the handlers ran.
        public let lane: Lane
        /// The tick's index.
        public let index: Int
        /// How long the handlers ran: on ``SystemScheduler`` measured on the monotonic clock, on another scheduler on
        /// that scheduler's clock (so zero on a `VirtualClock` unless a handler moves it).
        public let duration: Duration

        /// Creates an event (Tempo makes them; this is for testing instruments).
        ///
        /// - Parameters:
        ///   - label: The timer's label.
        ///   - clock: The timer's clock.
        ///   - lane: Where the handlers ran.
        ///   - index: The tick's index.
        ///   - duration: How long the handlers ran.
        public init(label: TimerLabel?, clock: TimerClock, lane: Lane, index: Int, duration: Duration) {
            self.label = label
            self.clock = clock
            self.lane = lane
            self.index = index
            self.duration = duration
        }
    }

    /// A handler, or an action on a driver thread, that held its lane for at least an instrument's
    /// ``TimerInstrument/stallThreshold``.
    public struct StallEvent: Sendable, CustomStringConvertible {
        /// The culprit's label; `nil` for an unlabeled timer or an action of ``TimerScheduler`` that is no timer.
        public let label: TimerLabel?
        /// The clock of the culprit.
        public let clock: TimerClock
        /// What it held.
        public let lane: Lane
        /// How long it held it.
        public let duration: Duration
        /// How many other timers waited behind it: on a driver thread, the actions that were due in the same wake
        /// after it (each a timer handing a tick to its handlers, or an action) plus the mailboxes of default-delivery
        /// timers taken before it (the one the thread was to drain, and those it hands to the delivery pool after the
        /// wake's due work); on the delivery pool, every timer that waited for a worker while it ran: those waiting
        /// when it started and every one handed to the pool meanwhile that found no worker free, including those a
        /// worker the pool started for stuck ones ran before the culprit returned. Timers that came due while a
        /// driver thread's culprit ran are not counted: the clock's other driver thread took over waiting for them
        /// about 0.5 ms after the culprit's deadline (a default-delivery handler that its driver thread drains
        /// itself counts 0 for the same reason). On a queue of yours or another scheduler: 0 (Tempo cannot see their
        /// backlog).
        public let delayed: Int

        /// Creates an event (Tempo makes them; this is for testing instruments).
        ///
        /// - Parameters:
        ///   - label: The culprit's label.
        ///   - clock: The culprit's clock.
        ///   - lane: What it held.
        ///   - duration: How long it held it.
        ///   - delayed: How many other timers waited behind it.
        public init(label: TimerLabel?, clock: TimerClock, lane: Lane, duration: Duration, delayed: Int) {
            self.label = label
            self.clock = clock
            self.lane = lane
            self.duration = duration
            self.delayed = delayed
        }

        /// For example `poll (App/Poller.swift:12) held the monotonic driver thread for 0.2 seconds; 99 timers
        /// waited`.
        public var description: String {
            let culprit = label.map { "\($0)" } ?? "an unlabeled timer or action"
            return "\(culprit) held the \(clock) \(lane) for \(duration); \(delayed) timers waited"
        }
    }

    /// The actions pending on one clock of ``SystemScheduler``, counted after a driver thread took the due ones.
    public struct PendingEvent: Sendable {
        /// The clock.
        public let clock: TimerClock
        /// Scheduled actions that have neither run nor been cancelled: armed timers (one action each), timing wheel
        /// drivers and one-shot actions.
        public let count: Int

        /// Creates an event (Tempo makes them; this is for testing instruments).
        ///
        /// - Parameters:
        ///   - clock: The clock.
        ///   - count: The pending actions.
        public init(clock: TimerClock, count: Int) {
            self.clock = clock
            self.count = count
        }
    }
}
