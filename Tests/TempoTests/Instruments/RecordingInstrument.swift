import Tempo
import TempoLocks

/// An instrument that records the events of the timers whose label name starts with `prefix` (instruments are
/// process-wide, so tests running in parallel see each other's timers; each test picks its own by name).
final class RecordingInstrument: TimerInstrument {
    let prefix: String
    let stallThreshold: Duration
    private let recorded = TempoMutex(Recorded())

    struct Recorded {
        var ticks: [TimerInstruments.TickEvent] = []
        var handlers: [TimerInstruments.HandlerEvent] = []
        var stalls: [TimerInstruments.StallEvent] = []
        var pending: [TimerInstruments.PendingEvent] = []
    }

    init(prefix: String, stallThreshold: Duration = .milliseconds(50)) {
        self.prefix = prefix
        self.stallThreshold = stallThreshold
    }

    private func isMine(_ label: TimerLabel?) -> Bool {
        label?.name.hasPrefix(prefix) ?? false
    }

    var ticks: [TimerInstruments.TickEvent] { recorded.withLock { $0.ticks } }
    var handlers: [TimerInstruments.HandlerEvent] { recorded.withLock { $0.handlers } }
    var stalls: [TimerInstruments.StallEvent] { recorded.withLock { $0.stalls } }
    var pending: [TimerInstruments.PendingEvent] { recorded.withLock { $0.pending } }

    func tickDelivered(_ event: TimerInstruments.TickEvent) {
        guard isMine(event.label) else { return }
        recorded.withLock { $0.ticks.append(event) }
    }

    func handlerFinished(_ event: TimerInstruments.HandlerEvent) {
        guard isMine(event.label) else { return }
        recorded.withLock { $0.handlers.append(event) }
    }

    func stalled(_ event: TimerInstruments.StallEvent) {
        guard isMine(event.label) else { return }
        recorded.withLock { $0.stalls.append(event) }
    }

    func pendingTimers(_ event: TimerInstruments.PendingEvent) {
        recorded.withLock { $0.pending.append(event) }
    }
}
