import Tempo

/// The waits between attempts: exponential growth from an initial delay up to a cap, with optional jitter.
///
/// Retry `n` (1 for the wait before the second attempt) has the base delay `min(cap, initial · multiplierⁿ⁻¹)`.
/// Jitter then draws the wait at random: ``Jitter/full`` uniformly in `0 ... base`, ``Jitter/decorrelated``
/// uniformly in `initial ... 3 · previous wait`, capped (AWS's "decorrelated jitter"). Without jitter the waits
/// are exact, which is what tests on a `VirtualClock` see.
///
/// `Backoff` is a value type and is `Sendable`.
public struct Backoff: Sendable, Hashable {
    /// How the wait is drawn from the base delay.
    ///
    /// `Jitter` is a value type and is `Sendable`; more kinds may be added in later versions.
    public struct Jitter: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Sendable, Hashable {
            case none
            case full
            case decorrelated
        }

        let kind: Kind

        /// The base delay itself (default).
        public static let none = Jitter(kind: .none)
        /// Uniform in `0 ... base`.
        public static let full = Jitter(kind: .full)
        /// Uniform in `initial ... 3 · previous wait`, at most `cap`.
        public static let decorrelated = Jitter(kind: .decorrelated)

        /// `none`, `full` or `decorrelated`.
        public var description: String {
            switch kind {
            case .none: "none"
            case .full: "full"
            case .decorrelated: "decorrelated"
            }
        }
    }

    /// The first wait's base delay; more than zero.
    public var initial: Duration
    /// The factor from one base delay to the next; at least 1.
    public var multiplier: Double
    /// The longest wait; at least `initial`, at most 100 years (36,500 days).
    public var cap: Duration
    /// How the wait is drawn.
    public var jitter: Jitter

    /// Exponential backoff from `initial`, multiplied by `multiplier` per retry, at most `cap`.
    ///
    /// - Parameters:
    ///   - initial: The first wait's base delay; more than zero.
    ///   - multiplier: The growth per retry (default 2); at least 1.
    ///   - cap: The longest wait; at least `initial`.
    ///   - jitter: How the wait is drawn (default ``Jitter/none``).
    /// - Returns: The backoff; bad values are rejected where it is used.
    public static func exponential(
        initial: Duration,
        multiplier: Double = 2,
        cap: Duration,
        jitter: Jitter = .none
    ) -> Backoff {
        Backoff(initial: initial, multiplier: multiplier, cap: cap, jitter: jitter)
    }

    /// The same wait every time.
    ///
    /// - Parameter delay: The wait; more than zero.
    /// - Returns: The backoff.
    public static func constant(_ delay: Duration) -> Backoff {
        Backoff(initial: delay, multiplier: 1, cap: delay, jitter: .none)
    }

    /// Throws unless the backoff can run.
    func validate(job: String?) throws(JobError) {
        let suffix = RetryPolicy.forJob(job)
        guard initial > .zero else {
            throw JobError(
                .invalidRetryPolicy, job: job,
                message: "backoff initial delay must be more than zero, got \(initial)\(suffix)")
        }
        guard cap >= initial else {
            throw JobError(
                .invalidRetryPolicy, job: job,
                message: "backoff cap \(cap) is below the initial delay \(initial)\(suffix)")
        }
        try JobDefinition.checkMaximum(cap, "backoff cap", .invalidRetryPolicy, job: job)
        guard multiplier.isFinite, multiplier >= 1 else {
            throw JobError(
                .invalidRetryPolicy, job: job,
                message: "backoff multiplier must be at least 1, got \(multiplier)\(suffix)")
        }
    }

    /// The wait before attempt `retry + 1`, given the previous wait (`nil` before the first retry).
    func delay(retry: Int, previous: Duration?, using generator: inout some RandomNumberGenerator) -> Duration {
        let initialSeconds = Self.seconds(initial)
        let capSeconds = Self.seconds(cap)
        switch jitter.kind {
        case .none, .full:
            let growth = pow(multiplier, Double(max(0, retry - 1)))
            let base = min(capSeconds, initialSeconds * growth)
            if case .none = jitter.kind { return min(cap, Self.duration(base)) }
            return Self.duration(Double.random(in: 0...base, using: &generator))
        case .decorrelated:
            let upper = max(initialSeconds, Self.seconds(previous ?? initial) * 3)
            return Self.duration(min(capSeconds, Double.random(in: initialSeconds...upper, using: &generator)))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        duration.inSeconds
    }

    /// The duration of `seconds`, rounded to whole nanoseconds and saturated to `Int64` nanoseconds (about 292
    /// years either way; not finite is zero), so that no wait traps. Validated backoffs stay far inside it.
    static func duration(_ seconds: Double) -> Duration {
        let nanoseconds = (seconds * 1e9).rounded()
        guard nanoseconds.isFinite else { return .zero }
        guard nanoseconds < 0x1p63 else { return .nanoseconds(Int64.max) }
        guard nanoseconds >= -0x1p63 else { return .nanoseconds(Int64.min) }
        return .nanoseconds(Int64(nanoseconds))
    }

    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 && result < 1e18 {
            result *= base
            remaining -= 1
        }
        return result
    }
}
