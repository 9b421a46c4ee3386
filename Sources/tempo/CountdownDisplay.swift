import Synchronization
import Tempo
import TempoLocks

/// Draws a countdown's progress bar; the time left is always read from the continuous clock.
///
/// Drawing is serialized by a lock, so the redraw timer and the SIGCONT handler may call in from any thread.
final class CountdownDisplay: Sendable {
    let total: Duration
    let start: TimerInstant
    let end: TimerInstant
    private let width: Int
    private let interactive: Bool
    private let finished = TempoMutex(false)

    init(total: Duration, width: Int, interactive: Bool) {
        self.total = total
        self.width = width
        self.interactive = interactive
        start = SystemScheduler.shared.now(.continuous)
        end = start + total
    }

    private var remaining: Duration {
        max(.zero, end - SystemScheduler.shared.now(.continuous))
    }

    /// The bar for `remaining` time left, for example `[██████░░░░]  60%  00:04.0 left`.
    func line(remaining: Duration) -> String {
        let done = 1 - min(1, max(0, remaining / total))
        let filled = Int((done * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let percent = String(Int((done * 100).rounded(.down))).leftPadded(to: 3)
        return "[\(bar)] \(percent)%  \(clockText(remaining)) left"
    }

    func begin() {
        if interactive {
            draw()
        } else {
            emit("countdown: \(formatDuration(total)), \(clockText(total)) left\n")
        }
    }

    func draw() {
        guard interactive else { return }
        emit("\r\u{1B}[2K" + line(remaining: remaining))
    }

    /// Called on SIGCONT: redraws at once, or reports the time left when not on a terminal.
    func resumed() {
        if interactive {
            draw()
        } else {
            emit("resumed: \(clockText(remaining)) left\n")
        }
    }

    func end(finished: Bool) {
        let elapsed = SystemScheduler.shared.now(.continuous) - start
        let text =
            interactive
            ? "\r\u{1B}[2K" + line(remaining: .zero)
                + "\ndone after \(clockText(elapsed, rounding: .toNearestOrAwayFromZero))\n"
            : "done after \(clockText(elapsed, rounding: .toNearestOrAwayFromZero))\n"
        emit(text, last: true)
    }

    private func emit(_ text: String, last: Bool = false) {
        finished.withLock { isFinished in
            guard !isFinished else { return }
            output(text, terminator: "")
            if last { isFinished = true }
        }
    }
}

/// `mm:ss.t`, or `h:mm:ss` from an hour up.
///
/// Time left is rounded up (so `00:00.0` shows only at the end); pass `.toNearestOrAwayFromZero` for elapsed time.
func clockText(_ duration: Duration, rounding: FloatingPointRoundingRule = .up) -> String {
    let tenths = Int((duration / .milliseconds(100)).rounded(rounding))
    let seconds = tenths / 10
    if seconds >= 3600 {
        let minutes = String((seconds / 60) % 60).leftPadded(to: 2, with: "0")
        return "\(seconds / 3600):\(minutes):\(String(seconds % 60).leftPadded(to: 2, with: "0"))"
    }
    let minutes = String(seconds / 60).leftPadded(to: 2, with: "0")
    return "\(minutes):\(String(seconds % 60).leftPadded(to: 2, with: "0")).\(tenths % 10)"
}

extension String {
    func leftPadded(to width: Int, with pad: Character = " ") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
