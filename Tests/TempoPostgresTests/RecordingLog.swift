#if Postgres
import Logging
import Synchronization

/// Log lines appended from any task, with their metadata.
final class RecordingLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// A logger whose messages go to this log.
    var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    /// The lines that contain `text`.
    func lines(containing text: String) -> [String] {
        lines.withLock { $0.filter { $0.contains(text) } }
    }

    /// How many lines contain `text`.
    func count(_ text: String) -> Int {
        lines.withLock { $0.filter { $0.contains(text) }.count }
    }

    private struct Handler: LogHandler {
        let log: RecordingLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        // swift-log 1.16's requirement (the older one with `source:` is deprecated).
        func log(event: LogEvent) {
            var all = metadata
            for (key, value) in event.metadata ?? [:] { all[key] = value }
            let fields = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            let line = "\(event.level) \(event.message) \(fields)"
            log.lines.withLock { $0.append(line) }
        }
    }
}
#endif
