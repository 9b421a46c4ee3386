/// A name for a timer, with the place in the source where it was given: how ``TimerInstrument`` events, stall
/// reports and log lines name a timer.
///
/// Give a label through the schedule, so that every type that takes a ``TimerSchedule`` (``TempoTimer``,
/// ``TimerRegistry``, ``SharedTicker``) carries it:
///
/// ```swift
/// let poll = try TempoTimer(.every(.seconds(5)).labeled("poll")) { _ in }.start()
/// ```
///
/// Keep names few and fixed (a kind of timer, not a user id or a key): metrics backends use the name as a
/// dimension, and an unbounded set of names is an unbounded set of time series. An empty name is allowed: the label
/// then names the timer by its site only.
///
/// `TimerLabel` is a value type and is `Sendable`.
public struct TimerLabel: Hashable, Sendable, CustomStringConvertible {
    /// The name given, possibly empty.
    public let name: String
    /// The file the label was given in (`#fileID`, for example `App/Poller.swift`).
    public let fileID: String
    /// The line the label was given on.
    public let line: Int

    /// Creates a label; leave `fileID` and `line` to their defaults so that they name the caller's site.
    ///
    /// - Parameters:
    ///   - name: The timer's name (empty: the site alone names it).
    ///   - fileID: Where the label is given; leave the default.
    ///   - line: The line the label is given on; leave the default.
    public init(_ name: String, fileID: String = #fileID, line: Int = #line) {
        self.name = name
        self.fileID = fileID
        self.line = line
    }

    /// The site alone, for example `App/Poller.swift:12`.
    public var site: String { "\(fileID):\(line)" }

    /// For example `poll (App/Poller.swift:12)`, or the site alone for an empty name.
    public var description: String {
        name.isEmpty ? site : "\(name) (\(site))"
    }
}
