import Dispatch
import Synchronization
import TempoLocks

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The scheduler that runs timers on the machine's real clocks.
///
/// Each ``TimerClock`` gets one driver: a kernel timer (a `timerfd` on Linux, with 1 ns timer slack) armed at the
/// earliest pending deadline plus its leeway, and two threads that take turns waiting on it. A clock's pending actions
/// live in one shard per processor (a power of two, 2 to 16), each with its own lock: threads take the shards in turn,
/// so threads that arm and cancel timers at the same time mostly do not wait for each other. When the kernel timer
/// fires, the waiting thread takes every action whose deadline has passed from every shard, in deadline order (among
/// equal deadlines, the order they were scheduled in, from any thread), releases the locks and runs them; the first
/// timer with the default delivery may then run its handlers on that thread too (see ``TimerDelivery/privateQueue``).
/// If that work is still running 0.5 ms after the deadline, the other thread takes over waiting, so slow work delays
/// the clock's other deadlines by about 0.5 ms at most. Nothing wakes while no deadline is pending. A clock's threads
/// start the first time something is scheduled on that clock. Scheduling, cancelling and running allocate nothing while
/// the number of pending actions stays within the chunks its shard's table has (Tempo's own timers are armed without a
/// closure).
///
/// Each shard's table grows in chunks of 1,024 actions, about 36 bytes per action (one more 16-byte key for an action
/// with leeway), and gives chunks back from its end once they hold no pending action: after a burst of a million timers
/// has ended, each shard's table returns to what the remaining actions need, plus one chunk. A new action takes the
/// lowest free slot, so actions armed after (or re-armed during) the burst do not hold its chunks; one that was armed
/// during the burst and outlives it keeps its chunk until it ends.
///
/// Actions run on a driver thread and must be short: Tempo's timers use them only to compute ticks and hand them to
/// their delivery.
///
/// Thread-safety: all methods may be called from any thread, including from inside an action.
public final class SystemScheduler: TimerScheduler {
    /// The kernel timer a scheduler sleeps on.
    ///
    /// A struct with static members rather than an enum, so that a later version can add a backend: compare with
    /// `==`. Its ``rawValue`` is the name `TEMPO_SCHEDULER_BACKEND` takes.
    public struct Backend: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The backends, for Tempo's own exhaustive switches.
        package enum Kind: String, Hashable, Sendable, CaseIterable {
            case timerfd
            case dispatch
        }

        /// Which backend this is.
        package let kind: Kind

        package init(kind: Kind) {
            self.kind = kind
        }

        /// The backend named `rawValue` (`timerfd` or `dispatch`), or `nil` for another name.
        ///
        /// - Parameter rawValue: The name.
        public init?(rawValue: String) {
            guard let kind = Kind(rawValue: rawValue) else { return nil }
            self.kind = kind
        }

        /// The backend's name: `timerfd` or `dispatch`.
        public var rawValue: String { kind.rawValue }

        /// The backend's name, as ``rawValue``.
        public var description: String { kind.rawValue }

        /// A `timerfd` per clock, waited on by two threads that take turns (Linux only; the default there). The
        /// first default-delivery handler of a wake runs on the thread that woke, so it needs no second wakeup.
        public static let timerfd = Backend(kind: .timerfd)
        /// A `DispatchSourceTimer` per clock (the default on Apple platforms; selectable on Linux). Handlers of the
        /// default delivery always run on the delivery pool, after a second wakeup.
        public static let dispatch = Backend(kind: .dispatch)

        /// Every backend this version knows, including those this platform lacks: ``timerfd`` and ``dispatch``.
        public static var allCases: [Backend] { Kind.allCases.map(Backend.init(kind:)) }

        /// The platform's default: ``timerfd`` on Linux, ``dispatch`` elsewhere.
        public static var platformDefault: Backend {
            #if os(Linux)
            .timerfd
            #else
            .dispatch
            #endif
        }
    }

    /// The process-wide scheduler. Every Tempo type uses it unless given another scheduler.
    ///
    /// Its backend is ``Backend/platformDefault``, unless the environment variable `TEMPO_SCHEDULER_BACKEND` names
    /// another one (`timerfd` or `dispatch`) when the scheduler is first used: that is how CI runs the same suites
    /// on both backends. An empty value is ignored. An unknown name, or `timerfd` where there is none, is ignored
    /// too (a library does not stop the process over an environment variable): the scheduler uses
    /// ``Backend/platformDefault`` and writes one line to standard error that names the value, once per process.
    public static let shared: SystemScheduler = {
        let name = getenv("TEMPO_SCHEDULER_BACKEND").flatMap { String(validatingCString: $0) }
        return SystemScheduler(backend: backend(named: name, warn: writeToStandardError), livesForever: true)
    }()

    /// The backend that `TEMPO_SCHEDULER_BACKEND=name` selects for ``shared``: `name`'s backend when this platform
    /// has it; ``Backend/platformDefault`` when `name` is `nil` or empty, or, after one call of `warn` with a line
    /// that names the value, when it names no backend of this platform.
    package static func backend(named name: String?, warn: (String) -> Void) -> Backend {
        guard let name, !name.isEmpty else { return .platformDefault }
        if let backend = Backend(rawValue: name), backend.isAvailable { return backend }
        let known = Backend.allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ")
        warn(
            "tempo: ignoring TEMPO_SCHEDULER_BACKEND=\(name): not a backend of this platform (\(known)); "
                + "using \(Backend.platformDefault.rawValue)"
        )
        return .platformDefault
    }

    /// Writes `line` and a newline to file descriptor 2 in one `write` (no stdio: its `stderr` is shared mutable
    /// state to Swift 6).
    private static func writeToStandardError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// The kernel timer this scheduler sleeps on.
    public let backend: Backend
    private let drivers: [ClockDriver]

    /// Creates a scheduler of its own on `backend`, with its own driver threads. Most code uses ``shared``.
    ///
    /// - Parameter backend: The kernel timer to sleep on; ``Backend/timerfd`` exists on Linux only.
    /// - Precondition: `backend` is available on this platform (``Backend/platformDefault`` always is).
    public convenience init(backend: Backend = .platformDefault) {
        self.init(backend: backend, livesForever: false)
    }

    /// - Parameter livesForever: Whether this is ``shared``, which is never released (its drivers say so).
    private init(backend: Backend, livesForever: Bool) {
        precondition(backend.isAvailable, "the \(backend) backend does not exist on this platform")
        self.backend = backend
        drivers = TimerClock.allCases.map { ClockDriver(clock: $0, backend: backend, livesForever: livesForever) }
    }

    /// Reads the real clock: `clock_gettime` on the clock's kernel clock.
    ///
    /// - Parameter clock: The clock to read.
    /// - Returns: The clock's current instant.
    public func now(_ clock: TimerClock) -> TimerInstant {
        PlatformClock.now(clock)
    }

    /// Schedules `action` on the driver thread of `clock`; see ``TimerScheduler/schedule(at:leeway:clock:_:)``.
    ///
    /// - Complexity: O(log n) in the number of pending actions on that clock.
    public func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        _ action: @escaping @Sendable () -> Void
    ) -> ScheduledAction {
        schedule(at: deadline, leeway: leeway, clock: clock, work: .action(action))
    }

    /// Schedules a call of `target` with the returned action's id, with no allocation once the clock's table has
    /// grown: how Tempo's own timers arm. Timing as in ``schedule(at:leeway:clock:_:)``.
    ///
    /// The scheduler's lock is a leaf: no other lock is taken while it is held, so this may be called under the
    /// caller's own lock (a timer arms under its lock, so that it records the handle in the same critical section).
    func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        target: ScheduledTargetReference
    ) -> ScheduledAction {
        drivers[clock.index].schedule(at: deadline, leeway: leeway, target: target)
    }

    /// Starts the threads that timers on `clocks` use now, rather than when the first timer is armed: each clock's
    /// driver threads (on the timerfd backend; the Dispatch backend makes its timer source) and the delivery pool's
    /// workers (one per processor, at least two).
    ///
    /// Without it, the first deadline scheduled on a clock starts that clock's threads, and the first tick delivered
    /// with the default delivery starts pool workers as they are needed: the first timer of a process pays for the
    /// threads' creation (allocations and start-up time), which a latency-sensitive app may rather pay at launch.
    /// Measured on Linux (`TickAllocationTests`, with `.ci/alloc-counter.c` preloaded): starting the first timer of
    /// a new scheduler made 19 allocations, 3 after `startThreads(for:)` (the clock's table); the threads allocate
    /// more as they start, on their own.
    /// Threads already started are left as they are; they never exit. Timing of timers is unchanged.
    ///
    /// Thread-safety: may be called from any thread, any number of times.
    ///
    /// - Parameter clocks: The clocks whose threads to start; all three by default.
    public func startThreads(for clocks: [TimerClock] = TimerClock.allCases) {
        for clock in clocks {
            drivers[clock.index].startThreads()
        }
        DeliveryPool.shared.startWorkers()
    }

    /// The driver of `clock`: what a ``TempoTimer`` on this scheduler keeps (it knows its clock and arms directly).
    func driver(for clock: TimerClock) -> ClockDriver {
        drivers[clock.index]
    }

    /// The driver of `clock`, without a reference count (the scheduler keeps it alive).
    func unretainedDriver(for clock: TimerClock) -> Unmanaged<ClockDriver> {
        drivers.withUnsafeBufferPointer { Unmanaged.passUnretained($0[clock.index]) }
    }

    private func schedule(
        at deadline: TimerInstant,
        leeway: Duration,
        clock: TimerClock,
        work: CompactDeadlineQueue.Work
    ) -> ScheduledAction {
        drivers[clock.index].schedule(at: deadline, leeway: leeway, work: work)
    }

    /// Cancels a scheduled action; once this returns it does not start. Stale handles are ignored.
    public func cancel(_ action: ScheduledAction) {
        let index = Int(action.id & 3)
        guard index < drivers.count else { return }
        drivers[index].remove(id: action.id, slot: action.slot)
    }

    /// The number of actions pending on `clock`, for diagnostics and tests.
    ///
    /// - Parameter clock: The clock whose actions to count.
    /// - Returns: Scheduled actions that have neither run nor been cancelled.
    public func pendingCount(on clock: TimerClock) -> Int {
        drivers[clock.index].pendingCount
    }
}

extension SystemScheduler.Backend {
    /// Whether this platform has the backend.
    var isAvailable: Bool {
        #if os(Linux)
        true
        #else
        self == .dispatch
        #endif
    }
}
