import TempoLocks

/// Records events as strings, from any thread, in the order they happened.
final class EventLog: Sendable {
    private let events = TempoMutex<[String]>([])
    var all: [String] { events.withLock { $0 } }
    func record(_ event: String) { events.withLock { $0.append(event) } }
}
