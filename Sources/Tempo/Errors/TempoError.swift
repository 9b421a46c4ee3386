/// An error that Tempo throws for bad input: an interval, count, leeway, key or instant that no timer can honour.
///
/// Every error names the offending value in its ``description``. New codes may be added in later versions,
/// so switch over ``code`` with a `default` branch.
///
/// Tempo's errors share one shape: `TempoError`, TempoPlans' `PlanError` and TempoJobs' `JobError` each have a
/// `code` (a struct of static members, so later versions can add codes), the value they reject or name, and a
/// `message`; their `description` is `code: message`, and two errors are equal when their code and value are.
/// `TimeoutError` is not a rejection of input but the outcome of `withTimeout`, so it carries
/// the timeout instead.
///
/// `TempoError` is a value type and is `Sendable`.
public struct TempoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of input was rejected.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: Hashable, Sendable {
            case invalidInterval
            case invalidCount
            case invalidLeeway
            case invalidKey
            case invalidInstant
            case invalidArgument
            case clockMismatch
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// An interval or delay that is zero, negative, not finite, or too large to add to an instant.
        public static let invalidInterval = Code(.invalidInterval)
        /// A repeat count below one.
        public static let invalidCount = Code(.invalidCount)
        /// A leeway (tolerance) that is negative, not finite, or too large.
        public static let invalidLeeway = Code(.invalidLeeway)
        /// A key that is empty.
        public static let invalidKey = Code(.invalidKey)
        /// An instant or date that cannot be used (for example a deadline that has already passed).
        public static let invalidInstant = Code(.invalidInstant)
        /// Any other argument outside its documented range.
        public static let invalidArgument = Code(.invalidArgument)
        /// A deadline of one clock given where another clock is fixed (for example a wall-clock date as the first
        /// tick of a monotonic timer); the message names both clocks.
        public static let clockMismatch = Code(.clockMismatch)

        /// The code's name, for example `invalidInterval`.
        public var description: String { String(describing: base) }
    }

    /// What kind of input was rejected.
    public let code: Code
    /// The rejected value, rendered as text (for example `-5.0 seconds` or `0`).
    public let value: String
    /// A sentence that says what was wrong and names the value.
    public let message: String

    /// Creates an error (for Tempo's own validation: user code does not make `TempoError`s).
    ///
    /// - Parameters:
    ///   - code: What kind of input was rejected.
    ///   - value: The rejected value, rendered as text.
    ///   - message: A sentence that names the value and says what was expected.
    package init(_ code: Code, value: String, message: String) {
        self.code = code
        self.value = value
        self.message = message
    }

    /// The message, prefixed with the code: `invalidInterval: interval must be positive, got -1.0 seconds`.
    public var description: String { "\(code): \(message)" }
    /// Equal when the code and the value are; the message is prose that may be reworded and is not compared.
    public static func == (lhs: TempoError, rhs: TempoError) -> Bool {
        lhs.code == rhs.code && lhs.value == rhs.value
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(value)
    }
}

extension TempoError {
    /// The largest interval, delay or leeway Tempo accepts: about 292 years (`Int64.max` nanoseconds).
    ///
    /// Anything longer cannot be handed to the operating system's timers and is rejected rather than clamped.
    package static let maximumDuration = Duration.nanoseconds(Int64.max)

    /// ``maximumDuration`` in attoseconds, a constant for checks on the hot path of creating a timer.
    private static var maximumDurationInAttoseconds: Int128 { 9_223_372_036_854_775_807_000_000_000 }

    /// One nanosecond in attoseconds.
    private static var oneNanosecondInAttoseconds: Int128 { 1_000_000_000 }

    /// Whether `interval` is a valid interval (see ``validateInterval(_:name:)``), in two integer comparisons:
    /// `Duration`'s comparison operators are calls into the standard library, and this is on the path of every arm.
    @inline(__always)
    package static func isValidInterval(_ interval: Duration) -> Bool {
        let attoseconds = interval.attoseconds
        return attoseconds >= oneNanosecondInAttoseconds && attoseconds <= maximumDurationInAttoseconds
    }

    /// Validates an interval: it must be at least 1 nanosecond (the resolution deadlines are handed to the
    /// operating system with) and at most ``maximumDuration``.
    ///
    /// The one rule for every interval, delay, duration and timeout Tempo takes, and for ``DurationParser``.
    ///
    /// - Parameters:
    ///   - interval: The interval to check.
    ///   - name: The parameter's name, used in the message.
    /// - Returns: `interval`, unchanged.
    /// - Throws: ``TempoError`` with ``Code/invalidInterval`` naming the value.
    @discardableResult
    package static func validateInterval(_ interval: Duration, name: String = "interval") throws(TempoError) -> Duration
    {
        if isValidInterval(interval) { return interval }
        guard interval > .zero else {
            throw TempoError(
                .invalidInterval, value: interval.exactDescription,
                message: "\(name) must be positive, got \(interval.exactDescription)")
        }
        guard interval >= .nanoseconds(1) else {
            throw TempoError(
                .invalidInterval, value: interval.exactDescription,
                message: "\(name) must be at least 1 nanosecond, got \(interval.exactDescription)")
        }
        guard interval <= maximumDuration else {
            throw TempoError(
                .invalidInterval,
                value: interval.exactDescription,
                message:
                    "\(name) \(interval.exactDescription) exceeds the maximum of \(maximumDuration.exactDescription)"
            )
        }
        return interval
    }

    /// Validates a delay, the time until a tick (as opposed to an interval, the time between ticks): it must be
    /// between zero and ``maximumDuration``; zero means at once.
    ///
    /// The one rule for `TimerSchedule.after(_:)`, `FirstTick.after(_:)`, `TempoTimer.reschedule(after:)`, and the
    /// delays of ``TimingWheel``, ``ShardedTimingWheel`` and ``DelayQueue``.
    ///
    /// - Parameters:
    ///   - delay: The delay to check.
    ///   - name: The parameter's name, used in the message.
    /// - Returns: `delay`, unchanged.
    /// - Throws: ``TempoError`` with ``Code/invalidInterval`` naming the value.
    @discardableResult
    package static func validateDelay(_ delay: Duration, name: String = "delay") throws(TempoError) -> Duration {
        let attoseconds = delay.attoseconds
        if attoseconds >= 0 && attoseconds <= maximumDurationInAttoseconds { return delay }
        throw TempoError(
            .invalidInterval, value: delay.exactDescription,
            message: "\(name) must be between 0 and \(maximumDuration.exactDescription), got \(delay.exactDescription)")
    }

    /// Validates a leeway: it must be zero or positive and at most ``maximumDuration``.
    ///
    /// - Parameter leeway: The leeway to check.
    /// - Returns: `leeway`, unchanged.
    /// - Throws: ``TempoError`` with ``Code/invalidLeeway`` naming the value.
    @discardableResult
    package static func validateLeeway(_ leeway: Duration) throws(TempoError) -> Duration {
        // The common case in two integer comparisons, as in `validateInterval(_:name:)`.
        let attoseconds = leeway.attoseconds
        if attoseconds >= 0 && attoseconds <= maximumDurationInAttoseconds { return leeway }
        guard leeway >= .zero, leeway <= maximumDuration else {
            throw TempoError(
                .invalidLeeway,
                value: leeway.exactDescription,
                message:
                    "leeway must be between 0 and \(maximumDuration.exactDescription), got \(leeway.exactDescription)"
            )
        }
        return leeway
    }

    /// Converts seconds given as a `Double` to an exact `Duration`, rejecting NaN, infinities, zero,
    /// negative values and values past ``maximumDuration``.
    ///
    /// The conversion keeps sub-millisecond precision: `0.5` is 500,000,000 ns, `0.000001` is 1 µs.
    ///
    /// - Parameters:
    ///   - seconds: The interval in seconds.
    ///   - name: The parameter's name, used in the message.
    /// - Returns: The interval as a `Duration`.
    /// - Throws: ``TempoError`` with ``Code/invalidInterval`` naming the value.
    package static func interval(seconds: Double, name: String = "interval") throws(TempoError) -> Duration {
        guard seconds.isFinite else {
            throw TempoError(.invalidInterval, value: "\(seconds)", message: "\(name) must be finite, got \(seconds)")
        }
        guard seconds > 0 else {
            throw TempoError(.invalidInterval, value: "\(seconds)", message: "\(name) must be positive, got \(seconds)")
        }
        guard seconds <= 9.2e9 else {
            throw TempoError(
                .invalidInterval,
                value: "\(seconds)",
                message: "\(name) \(seconds) seconds exceeds the maximum of \(maximumDuration)"
            )
        }
        let duration = Duration.seconds(seconds)
        guard duration > .zero else {
            // A positive value below one attosecond converts to zero: name the value the caller gave.
            throw TempoError(
                .invalidInterval,
                value: "\(seconds)",
                message: "\(name) \(seconds) seconds is shorter than Duration's resolution of 1 attosecond"
            )
        }
        return try validateInterval(duration, name: name)
    }
}

extension Duration {
    /// The duration in seconds with every digit down to the attosecond, for error messages: two durations that
    /// differ print differently (`9223372036.854775808 seconds` is not `9223372036.854775807 seconds`).
    package var exactDescription: String {
        let negative = attoseconds < 0
        let magnitude = attoseconds.magnitude
        let (seconds, fraction) = magnitude.quotientAndRemainder(dividingBy: 1_000_000_000_000_000_000)
        var text = negative ? "-\(seconds)" : "\(seconds)"
        if fraction > 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 18 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + " seconds"
    }
}

extension TempoError {
    /// `text` for an error's value or message, cut to its first 64 characters (with its length) when longer, so
    /// that a rejected megabyte of input is not copied into the error.
    package static func capped(_ text: some StringProtocol) -> String {
        guard text.count > 64 else { return String(text) }
        return "\(text.prefix(64))… (\(text.count) characters)"
    }
}
