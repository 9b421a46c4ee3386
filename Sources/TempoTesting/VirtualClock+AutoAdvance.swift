import Tempo

extension VirtualClock {
    /// Runs `body` while the clock advances by itself: whenever the code under test has settled, the clock jumps
    /// to the next pending deadline (over all clocks) and runs what is due there, until `body` returns.
    ///
    /// Code written for real time runs unchanged and finishes in milliseconds, in the same order every run:
    ///
    /// ```swift
    /// let clock = VirtualClock()
    /// try await clock.run {
    ///     let registry = TimerRegistry<String>(scheduler: clock)
    ///     try registry.schedule("hourly", .every(.seconds(3600))) { _ in backUp() }
    ///     try await clock.sleep(for: .seconds(24 * 3600))   // a day of virtual time
    /// }
    /// ```
    ///
    /// Callback timers, `Task.sleep(for:clock:)` and `sleep(until:)` on this clock (or on ``clock(_:)``), tick
    /// sequences on it and `withTimeout(after:clock:)` with it all advance, since each of them waits by scheduling
    /// a deadline on the clock.
    ///
    /// ## When the clock counts as idle
    /// The clock sees only what is scheduled on it: schedules, cancels, timers' deliveries and
    /// the actions it runs. It counts as *idle*, and advances, when all of these hold:
    /// - at least one action is pending;
    /// - no task whose sleep on this clock ended (``sleep(until:tolerance:)``, and so `Task.sleep`, tick sequences
    ///   and timeouts on it) is still waiting for the executor to run it;
    /// - none of those events happened during the last `quietPeriod` of real time and the last 3 yields of the
    ///   driving task (so other tasks resumed by the previous step, such as a continuation resumed by a handler,
    ///   had the executor to run until they wait again);
    /// - no ``holdingTime(isolation:_:)`` scope is open.
    ///
    /// Work queued on a `DispatchQueue` by a timer's delivery is finished before a step returns, so callback timers are always settled.
    ///
    /// ## Work the clock cannot see
    /// A task waiting on something other than this clock (I/O, a real-time sleep, another clock) looks idle. If
    /// nothing else is pending the clock waits for it; if deadlines are pending, the clock advances to them once
    /// the quiet period has passed, even though the task has not finished: a `withTimeout` on this clock around
    /// real I/O times out in virtual time. Wrap such work in ``holdingTime(isolation:_:)`` to keep the clock still until it
    /// finishes, or raise `quietPeriod` for computation that runs longer between waits.
    ///
    /// ## Tasks the run does not see
    /// The same order every run holds for what the run can see: actions scheduled on this clock (or on a
    /// ``site(_:outlivesTest:fileID:line:)``), and sleeps on it from `body` and its child tasks (task groups,
    /// `async let`), which run on the run's executor. A task created with `Task { }` or `Task.detached` runs on the
    /// shared executor: until it sleeps on the clock, the run does not know it exists, and after its quiet period
    /// it may advance past the deadline that task is about to sleep until, sooner or later depending on how busy
    /// the machine is. `ClockScheduler(clock: clock)` sleeps from such a task, so a timer on it can tick on time,
    /// late, or not at all from one run to the next: pass the clock itself as the scheduler (it is one). Reads
    /// and sleeps of this clock by such tasks during a run are counted, and the armed-timer check
    /// (``recordArmedTimers(sourceLocation:)``, the `.armedTimerCheck` trait) fails the test for them. It sees a
    /// task once the task first reads or sleeps on the clock, so a task that is still waiting to start when the
    /// test ends is not reported.
    ///
    /// ## Ending
    /// The run ends when `body` returns or throws; timers still armed stay armed (the manual mode takes over:
    /// nothing moves until the test advances). Outside `run` the clock is manual, as always. Inside it, leave time
    /// to the run: don't call ``advance(by:)``, ``suspend(for:)`` or ``adjustWallClock(by:)`` from `body`, and don't
    /// start two runs on one clock at once.
    ///
    /// Thread-safety: `body` runs in a child task, and the clock is advanced from a second child task, one step at
    /// a time. Both prefer an executor of the run's own (a serial queue), as do the child tasks they create (task
    /// groups, `async let`), so a busy test process does not slow the run down; tasks started with `Task { }` and
    /// actor-isolated code run where they always do.
    ///
    /// - Parameters:
    ///   - quietPeriod: How long of real time no clock event may happen before the clock advances (default
    ///     0.5 ms).
    ///   - maximumSteps: The most deadlines to advance to; a run that needs more throws (default 1,000,000).
    ///   - stallTimeout: How long of real time `body` may wait while nothing is pending on the clock before the run
    ///     throws (default 10 s).
    ///   - body: The code under test; it runs in a child task.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw; ``AutoAdvanceError`` when the step limit was reached or `body` stalled (then
    ///   `body` is cancelled and awaited first).
    public func run<Result: Sendable>(
        quietPeriod: Duration = .microseconds(500),
        maximumSteps: Int = 1_000_000,
        stallTimeout: Duration = .seconds(10),
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let driver = AutoAdvanceDriver(
            engine: engine, quietPeriod: quietPeriod, maximumSteps: maximumSteps, stallTimeout: stallTimeout)
        let executor = RunExecutor()
        engine.beginRun(on: executor.asUnownedTaskExecutor())
        defer { engine.endRun(on: executor.asUnownedTaskExecutor()) }
        return try await withTaskExecutorPreference(executor) {
            try await Self.race(body, against: driver)
        }
    }

    /// Runs `body` and the driver as two child tasks until `body` ends.
    private static func race<Result: Sendable>(
        _ body: @escaping @Sendable () async throws -> Result,
        against driver: AutoAdvanceDriver
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: AutoAdvanceOutcome<Result>.self) { group in
            group.addTask {
                defer { driver.finish() }
                return .finished(try await body())
            }
            group.addTask {
                try await driver.drive()
                return .driverStopped
            }
            defer { group.cancelAll() }
            while let outcome = try await group.next() {
                if case .finished(let value) = outcome { return value }
            }
            preconditionFailure("the body of VirtualClock.run returned no value")
        }
    }

    /// Keeps an auto-advancing ``run(quietPeriod:maximumSteps:stallTimeout:_:)`` from moving time while `body`
    /// runs: for work the clock cannot see, such as real I/O inside a `withTimeout` on this clock.
    ///
    /// In the manual mode it only runs `body`.
    ///
    /// - Parameters:
    ///   - isolation: The caller's actor, on which `body` runs.
    ///   - body: The work to wait for.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw.
    public func holdingTime<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async rethrows -> Result {
        engine.changeHolds(by: 1)
        defer { engine.changeHolds(by: -1) }
        return try await body()
    }

    /// Why an auto-advancing run stopped without `body` returning: the one error shape of Tempo (as `TempoError`), a
    /// ``Code``, the ``value`` that reached its limit, and a ``message``.
    ///
    /// Two errors are equal when their codes are (the value and message are for people). `AutoAdvanceError` is a value
    /// type and is `Sendable`.
    public struct AutoAdvanceError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What stopped the run. A struct with static members, so that a later version can add a reason.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            private enum Base: Hashable, Sendable {
                case tooManySteps
                case stalled
            }

            private let base: Base

            private init(_ base: Base) { self.base = base }

            /// The run advanced to its step limit (`maximumSteps` deadlines) and `body` had not returned (a repeating
            /// timer that `body` never stops, for example). ``AutoAdvanceError/value`` is the number of steps.
            public static let tooManySteps = Code(.tooManySteps)
            /// Nothing was pending on the clock and nothing happened on it for the stall timeout of real time, while
            /// `body` still waited: it waits on something the clock cannot advance. ``AutoAdvanceError/value`` is the
            /// timeout.
            public static let stalled = Code(.stalled)

            /// `tooManySteps` or `stalled`.
            public var description: String { String(describing: base) }
        }

        /// What stopped the run.
        public let code: Code
        /// The limit that was reached: the number of steps, or the stall timeout.
        public let value: String
        /// A sentence naming the limit that was reached.
        public let message: String

        /// The run advanced to `steps` deadlines, its limit.
        static func tooManySteps(_ steps: Int) -> AutoAdvanceError {
            AutoAdvanceError(
                code: .tooManySteps, value: "\(steps)",
                message: "VirtualClock.run advanced to \(steps) deadlines and its body had not returned")
        }

        /// Nothing was pending on the clock for `timeout` while the body was still waiting.
        static func stalled(after timeout: Duration) -> AutoAdvanceError {
            AutoAdvanceError(
                code: .stalled, value: "\(timeout)",
                message:
                    "VirtualClock.run: nothing pending on the clock for \(timeout) while its body was still waiting")
        }

        private init(code: Code, value: String, message: String) {
            self.code = code
            self.value = value
            self.message = message
        }

        /// Whether the two errors have the same code.
        public static func == (lhs: AutoAdvanceError, rhs: AutoAdvanceError) -> Bool {
            lhs.code == rhs.code
        }

        /// Hashes the code only, as ``==(_:_:)`` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(code)
        }

        /// The message, prefixed with the code: `stalled: VirtualClock.run: nothing pending ...`.
        public var description: String { "\(code): \(message)" }
    }
}

/// Which child of an auto-advancing run ended.
private enum AutoAdvanceOutcome<Result: Sendable>: Sendable {
    case finished(Result)
    case driverStopped
}
