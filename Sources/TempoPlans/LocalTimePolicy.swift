/// What a calendar plan does with local times that a daylight-saving (or other offset) change skips or repeats.
///
/// When clocks go forward (in Berlin on the last Sunday of March, 02:00 becomes 03:00), the local times in
/// between do not exist. When they go back (last Sunday of October, 03:00 becomes 02:00), the local times
/// in between happen twice, an hour apart. The policy says which instants a plan yields for them:
///
/// | Policy | A planned local time that is skipped | A planned local time that happens twice |
/// | --- | --- | --- |
/// | ``SkippedTime/runAfter`` | one date at the first instant after the gap (the instant of the change) | |
/// | ``SkippedTime/skip`` | no date | |
/// | ``RepeatedTime/once`` | | one date, at the first occurrence |
/// | ``RepeatedTime/both`` | | two dates, one per occurrence |
/// | ``SkippedTime/cron`` / ``RepeatedTime/cron`` (default) | `runAfter`, or `skip` for a wildcard plan | `once`, or `both` for a wildcard plan |
///
/// A *wildcard* plan fires hourly or more often: its cron minute or hour field begins with `*` (as in cron's
/// own rule), or a ``CalendarRule`` lists every hour or every minute. Cron runs such jobs "normally" on real
/// time: an hourly job runs once per real hour across both changes. Every other plan names fixed local
/// times ("09:00", "02:30"); cron runs those once when the clock skips them and once when it repeats them.
/// Several planned local times in one gap yield one date (they all map to the same instant).
///
/// `LocalTimePolicy` is a value type and is `Sendable`.
public struct LocalTimePolicy: Hashable, Sendable, CustomStringConvertible {
    /// What happens to a planned local time that a forward change skips.
    ///
    /// A struct with static members rather than an enum, so that a later version can add a policy: compare with `==`.
    public struct SkippedTime: Hashable, Sendable, CustomStringConvertible {
        /// The policies, for TempoPlans' own exhaustive switches.
        package enum Kind: Hashable, Sendable {
            case cron
            case runAfter
            case skip
        }

        /// Which policy this is.
        package let kind: Kind

        package init(kind: Kind) {
            self.kind = kind
        }

        /// ``runAfter`` for plans with fixed times, ``skip`` for wildcard plans (cron's rule).
        public static let cron = SkippedTime(kind: .cron)
        /// Yield the first instant after the gap: the instant the clocks changed.
        public static let runAfter = SkippedTime(kind: .runAfter)
        /// Yield nothing for it.
        public static let skip = SkippedTime(kind: .skip)

        /// `cron`, `runAfter` or `skip`.
        public var description: String { "\(kind)" }
    }

    /// What happens to a planned local time that a backward change repeats.
    ///
    /// A struct with static members rather than an enum, so that a later version can add a policy: compare with `==`.
    public struct RepeatedTime: Hashable, Sendable, CustomStringConvertible {
        /// The policies, for TempoPlans' own exhaustive switches.
        package enum Kind: Hashable, Sendable {
            case cron
            case once
            case both
        }

        /// Which policy this is.
        package let kind: Kind

        package init(kind: Kind) {
            self.kind = kind
        }

        /// ``once`` for plans with fixed times, ``both`` for wildcard plans (cron's rule).
        public static let cron = RepeatedTime(kind: .cron)
        /// Yield the first occurrence only.
        public static let once = RepeatedTime(kind: .once)
        /// Yield both occurrences.
        public static let both = RepeatedTime(kind: .both)

        /// `cron`, `once` or `both`.
        public var description: String { "\(kind)" }
    }

    /// What happens to skipped local times.
    public var skipped: SkippedTime
    /// What happens to repeated local times.
    public var repeated: RepeatedTime

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - skipped: What happens to skipped local times (default ``SkippedTime/cron``).
    ///   - repeated: What happens to repeated local times (default ``RepeatedTime/cron``).
    public init(skipped: SkippedTime = .cron, repeated: RepeatedTime = .cron) {
        self.skipped = skipped
        self.repeated = repeated
    }

    /// Cron's behaviour, the default: see the table above.
    public static let cron = LocalTimePolicy()

    /// For example `skipped: runAfter, repeated: once`.
    public var description: String { "skipped: \(skipped), repeated: \(repeated)" }

    /// Whether a skipped local time yields the instant after the gap, for a plan that is or is not a wildcard.
    func runsAfterGap(wildcard: Bool) -> Bool {
        switch skipped.kind {
        case .cron: !wildcard
        case .runAfter: true
        case .skip: false
        }
    }

    /// Whether a repeated local time yields both occurrences.
    func runsBoth(wildcard: Bool) -> Bool {
        switch repeated.kind {
        case .cron: wildcard
        case .once: false
        case .both: true
        }
    }
}
