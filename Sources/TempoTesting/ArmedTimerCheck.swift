public import Testing

extension VirtualClock {
    /// The clock of the running test when it uses the ``ArmedTimerCheck`` trait (`.armedTimerCheck`), else `nil`.
    @TaskLocal public static var current: VirtualClock?
}

/// A Swift Testing trait that gives the test a ``VirtualClock`` (``VirtualClock/current``) and fails the test for
/// each timer still armed on it when the test ends, naming the timer and the line that created it (for timers
/// created on ``VirtualClock/site(_:outlivesTest:fileID:line:)``).
///
/// ```swift
/// @Test(.armedTimerCheck) func pollingStopsOnLogout() throws {
///     let clock = try #require(VirtualClock.current)
///     let session = try Session(scheduler: clock.site("poller"))
///     session.logout()                     // fails the test if the poller is still armed after this
/// }
/// ```
///
/// Timers created with `site(_:outlivesTest: true)` are not reported. The check runs after the test's body, also
/// when it threw; it reads the clock's pending actions and does not move time.
public struct ArmedTimerCheck: TestTrait, TestScoping {
    /// Creates the trait; spelled `.armedTimerCheck`.
    public init() {}

    /// Runs the test with a new clock as ``VirtualClock/current``, then records an issue per armed timer.
    ///
    /// - Parameters:
    ///   - test: The test.
    ///   - testCase: The test case, for parameterized tests.
    ///   - function: The test's body.
    /// - Throws: What the test threw.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let clock = VirtualClock()
        defer { clock.recordArmedTimers(sourceLocation: test.sourceLocation) }
        try await VirtualClock.$current.withValue(clock) {
            try await function()
        }
    }
}

extension Trait where Self == ArmedTimerCheck {
    /// Fails the test for each timer still armed on ``VirtualClock/current`` when it ends; see ``ArmedTimerCheck``.
    public static var armedTimerCheck: Self { ArmedTimerCheck() }
}
