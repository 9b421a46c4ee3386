public import Tempo
public import Testing

extension VirtualClock {
    /// Where a timer was created, recorded when it is created on ``site(_:outlivesTest:fileID:line:)``.
    public struct CreationSite: Hashable, Sendable, CustomStringConvertible {
        /// The name given to ``site(_:outlivesTest:fileID:line:)``, or empty.
        public let name: String
        /// Whether the timer may still be armed when the test ends (not reported by the armed-timer check).
        public let outlivesTest: Bool
        /// The file the timer was created in (`#fileID`).
        public let fileID: String
        /// The line the timer was created on.
        public let line: Int

        /// For example `"heartbeat" (MyTests/HeartbeatTests.swift:12)`.
        public var description: String {
            let label = name.isEmpty ? "a timer" : "\"\(name)\""
            return "\(label) (\(fileID):\(line))"
        }
    }

    /// An action still pending on the clock: a timer's next deadline, a sleep, a debounce, a wheel tick.
    public struct ArmedTimer: Hashable, Sendable, CustomStringConvertible {
        /// Where it was created, if it was created on ``site(_:outlivesTest:fileID:line:)``.
        public let site: CreationSite?
        /// The `TimerLabel` of what armed it, if it had one: a timer whose schedule was labeled (with
        /// `TimerSchedule.labeled(_:fileID:line:)`, also through `TimerRegistry`, `SharedTicker`, or a labeled
        /// plan of TempoPlans), or a TempoJobs job waiting for its next date (labeled with its name).
        public let label: TimerLabel?
        /// The clock it is armed on.
        public let clock: TimerClock
        /// Its deadline, known for actions armed through a site or with a label.
        public let deadline: TimerInstant?

        /// A sentence naming the timer by its site, else by its label, with its clock and deadline.
        public var description: String {
            let due = deadline.map { " due at \($0)" } ?? ""
            if let site {
                return "\(site) armed on the \(clock) clock\(due)"
            }
            if let label {
                let name = label.name.isEmpty ? "a timer" : "\"\(label.name)\""
                return "\(name) (\(label.site)) armed on the \(clock) clock\(due)"
            }
            return "an action armed on the \(clock) clock (label the timer's schedule with `.labeled(\"name\")`, or "
                + "create it on `scheduler: clock.site(\"name\")`, to see which and where)"
        }
    }

    /// A scheduler on this clock that records where each timer created on it was created, for the armed-timer check
    /// (``recordArmedTimers(sourceLocation:)``, ``withArmedTimerCheck(sourceLocation:isolation:_:)``, the `.armedTimerCheck`
    /// trait).
    ///
    /// Pass it where a timer takes its scheduler, on the line that creates the timer:
    ///
    /// ```swift
    /// let heartbeat = try TempoTimer(.every(.seconds(1)), scheduler: clock.site("heartbeat")) { _ in beat() }.start()
    /// ```
    ///
    /// Time, delivery and lifetime are the clock's: the site holds the clock's shared state (as timers do) and
    /// not the clock. Recording costs a dictionary entry per pending deadline; timers created on the clock itself
    /// record nothing.
    ///
    /// - Parameters:
    ///   - name: The timer's name in failure messages (default empty: "a timer").
    ///   - outlivesTest: Whether the timer is meant to stay armed after the test (the check skips it).
    ///   - fileID: Where the timer is created; leave the default.
    ///   - line: The line the timer is created on; leave the default.
    /// - Returns: A scheduler to create the timer on.
    public func site(
        _ name: String = "",
        outlivesTest: Bool = false,
        fileID: String = #fileID,
        line: Int = #line
    ) -> any TimerScheduler {
        SiteScheduler(
            engine: engine, site: CreationSite(name: name, outlivesTest: outlivesTest, fileID: fileID, line: line))
    }

    /// Every action pending on the clock, those created on a ``site(_:outlivesTest:fileID:line:)`` first in
    /// scheduling order, then one entry per other pending action.
    public var armedTimers: [ArmedTimer] {
        engine.armedActions
    }

    /// Records a test issue for each action still armed on the clock, except those of sites created with
    /// `outlivesTest: true`; an issue names the timer (by its site, else by its `TimerLabel`) and is reported at
    /// the line that created the site or gave the label, when known.
    ///
    /// - Parameter sourceLocation: Where to report actions whose creation site is unknown.
    /// - Returns: The armed timers that were reported.
    ///
    /// It also records one issue when, during ``run(quietPeriod:maximumSteps:stallTimeout:_:)``, tasks that the run
    /// does not see (`Task { }`, `Task.detached`, the task a `ClockScheduler` on this clock sleeps from) read or
    /// slept on this clock: their order is not deterministic (see "Tasks the run does not see" there).
    @discardableResult
    public func recordArmedTimers(sourceLocation: SourceLocation = #_sourceLocation) -> [ArmedTimer] {
        let reports = armedTimerReports(sourceLocation: sourceLocation)
        for report in reports {
            Issue.record(Comment(rawValue: report.message), sourceLocation: report.sourceLocation)
        }
        if let message = foreignTaskReport {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        return reports.map(\.timer)
    }

    /// The failure message for reads and sleeps of this clock by tasks outside an auto-advancing run, or `nil`.
    package var foreignTaskReport: String? {
        let uses = engine.foreignTaskUseCount
        guard uses > 0 else { return nil }
        return "VirtualClock.run: \(uses) reads or sleeps of the clock came from tasks outside the run "
            + "(Task { }, Task.detached, or a ClockScheduler on this clock), which the run cannot keep in step, so "
            + "their order is not deterministic: schedule on the clock itself (scheduler: clock)"
    }

    /// What ``recordArmedTimers(sourceLocation:)`` records: per reported timer, the message and where it goes.
    package func armedTimerReports(
        sourceLocation: SourceLocation
    ) -> [(timer: ArmedTimer, message: String, sourceLocation: SourceLocation)] {
        armedTimers.filter { !($0.site?.outlivesTest ?? false) }.map { timer in
            let place = timer.site.map { ($0.fileID, $0.line) } ?? timer.label.map { ($0.fileID, $0.line) }
            let location =
                place.map {
                    SourceLocation(fileID: $0.0, filePath: sourceLocation.filePath, line: $0.1, column: 1)
                } ?? sourceLocation
            return (timer, "Still armed when the test ended: \(timer)", location)
        }
    }

    /// Runs `body` with a new virtual clock, then fails the test for each timer still armed on it; see
    /// ``recordArmedTimers(sourceLocation:)``.
    ///
    /// ```swift
    /// try await VirtualClock.withArmedTimerCheck { clock in
    ///     let poller = try TempoTimer(.every(.seconds(5)), scheduler: clock.site("poller")) { _ in poll() }.start()
    ///     clock.advance(by: .seconds(5))
    ///     poller.cancel()                      // without this line the test fails naming "poller"
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sourceLocation: Where to report armed actions whose creation site is unknown.
    ///   - isolation: The caller's actor, on which `body` runs.
    ///   - body: The test, given the clock.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (the check runs either way).
    public static func withArmedTimerCheck<Result>(
        sourceLocation: SourceLocation = #_sourceLocation,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (VirtualClock) async throws -> Result
    ) async rethrows -> Result {
        let clock = VirtualClock()
        defer { clock.recordArmedTimers(sourceLocation: sourceLocation) }
        return try await body(clock)
    }

    /// Runs synchronous `body` with a new virtual clock, then fails the test for each timer still armed on it; see
    /// ``withArmedTimerCheck(sourceLocation:isolation:_:)``.
    ///
    /// - Parameters:
    ///   - sourceLocation: Where to report armed actions whose creation site is unknown.
    ///   - body: The test, given the clock.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw (the check runs either way).
    public static func withArmedTimerCheck<Result>(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (VirtualClock) throws -> Result
    ) rethrows -> Result {
        let clock = VirtualClock()
        defer { clock.recordArmedTimers(sourceLocation: sourceLocation) }
        return try body(clock)
    }
}

/// A ``VirtualClock`` scheduler that tags what it schedules with where its timer was created.
private final class SiteScheduler: EngineView {
    let engine: VirtualClockEngine
    let site: VirtualClock.CreationSite?

    init(engine: VirtualClockEngine, site: VirtualClock.CreationSite) {
        self.engine = engine
        self.site = site
    }
}
