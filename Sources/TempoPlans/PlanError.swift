package import Tempo

/// An error that TempoPlans throws for bad input: malformed cron or plan text, values out of range, a plan
/// that can never fire, an unknown time zone, or an interval, count or date no plan can honour.
///
/// Every error names the offending text in ``value`` and, for cron text, the ``field`` it was found in, so a
/// message reads like `invalidCron: day of month: 32 is out of range 1-31 (in "0 0 32 * *")`. New codes may be
/// added in later versions, so switch over ``code`` with a `default` branch.
///
/// It has the shape of Tempo's other errors (`TempoError`, `JobError`): a ``code``, the rejected ``value`` and a
/// ``message``; two errors are equal when their code, field and value are (the message is prose that may be
/// reworded between versions). The core's codes that a plan passes on (``Code/invalidInterval``,
/// ``Code/invalidLeeway``, ...) keep their `TempoError` names.
///
/// `PlanError` is a value type and is `Sendable`.
public struct PlanError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of input was rejected.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) { self.name = name }

        /// Cron text that does not parse: a wrong number of fields, an unknown name, a value out of range, a bad
        /// range, list or step, or an unsupported macro.
        public static let invalidCron = Code("invalidCron")
        /// Plan text (the small English form, for example `every weekday at 09:00`) that does not parse.
        public static let invalidPlanText = Code("invalidPlanText")
        /// A calendar rule whose values are out of range (a time of day, a day of the month) or empty.
        public static let invalidRule = Code("invalidRule")
        /// A rule that no date in any year satisfies, for example the 30th of February (`0 0 30 2 *`).
        public static let neverFires = Code("neverFires")
        /// A time-zone identifier that the system's time-zone database does not know.
        public static let unknownTimeZone = Code("unknownTimeZone")
        /// An interval or offset that is zero, negative or too large.
        public static let invalidInterval = Code("invalidInterval")
        /// A count below one.
        public static let invalidCount = Code("invalidCount")
        /// A leeway (tolerance) that is negative or too large.
        public static let invalidLeeway = Code("invalidLeeway")
        /// A registry key that is empty.
        public static let invalidKey = Code("invalidKey")
        /// A date that is not finite or lies outside the range plans can represent (see ``Plan``).
        public static let invalidDate = Code("invalidDate")
        /// An argument that does not fit the others: a ``PlanHandler/mainActor(_:)`` handler with a delivery other
        /// than the default or the main queue.
        public static let invalidArgument = Code("invalidArgument")

        /// The code's name, for example `invalidCron`.
        public var description: String { name }

        /// The code named `name`: a core code (`invalidLeeway`, ...) keeps its name in a plan's error.
        fileprivate init(named name: String) { self.name = name }
    }

    /// What kind of input was rejected.
    public let code: Code
    /// The cron field the bad text was found in, or `nil` when the error is not about one field.
    public let field: CronField?
    /// The rejected text or value, for example `32`, `FOO` or `Mars/Olympus` (cut to 64 characters when longer).
    public let value: String
    /// A sentence that says what was wrong and names the text.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of input was rejected.
    ///   - field: The cron field the text belongs to, if any.
    ///   - value: The rejected text or value.
    ///   - message: A sentence that names the text and says what was expected.
    public init(_ code: Code, field: CronField? = nil, value: String, message: String) {
        self.code = code
        self.field = field
        self.value = value
        self.message = message
    }

    /// The code, the field when there is one, and the message: `invalidCron: minute: 61 is out of range 0-59`.
    public var description: String {
        if let field { return "\(code): \(field): \(message)" }
        return "\(code): \(message)"
    }

    /// A plan's error for one of the core's (a leeway, a delivery): the same code name, value and message, so a
    /// `TempoError` is re-wrapped in one place.
    package init(_ error: TempoError) {
        self.init(Code(named: error.code.description), value: error.value, message: error.message)
    }

    /// Equal when the code, the field and the value are; the message is not compared.
    public static func == (lhs: PlanError, rhs: PlanError) -> Bool {
        lhs.code == rhs.code && lhs.field == rhs.field && lhs.value == rhs.value
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(field)
        hasher.combine(value)
    }
}

/// A field of a cron expression, named in ``PlanError/field``.
///
/// `CronField` is a value type and is `Sendable`.
///
/// An enum, closed: the five fields of cron text, the format TempoPlans reads.
public enum CronField: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The optional first field of the six-field form, 0-59.
    case second
    /// Minutes, 0-59.
    case minute
    /// Hours, 0-23.
    case hour
    /// Days of the month, 1-31, or `L` for the last day.
    case dayOfMonth
    /// Months, 1-12 or `JAN`-`DEC`.
    case month
    /// Days of the week, 0-7 (0 and 7 are Sunday) or `SUN`-`SAT`.
    case dayOfWeek
    /// The expression as a whole (its number of fields, or a macro).
    case expression

    /// The field's name in words, for example `day of month`.
    public var description: String {
        switch self {
        case .second: "second"
        case .minute: "minute"
        case .hour: "hour"
        case .dayOfMonth: "day of month"
        case .month: "month"
        case .dayOfWeek: "day of week"
        case .expression: "expression"
        }
    }
}
