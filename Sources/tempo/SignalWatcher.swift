import CTempoToolsShims
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls a handler for each signal of a set that the process receives, on a thread of its own.
///
/// The signals are caught (not ignored) from the moment ``watch(_:handler:)`` returns, so a signal that arrives while
/// the command is still starting is handled, never lost: a Dispatch signal source registers asynchronously, and
/// under `SIG_IGN` a signal that came before the registration was discarded (`tempo every --plan` then missed a
/// SIGTERM on a loaded machine and waited for its next date). Caught signals go back to their default action in the
/// commands `tempo` runs (`exec` resets handlers; an ignored signal would have stayed ignored).
///
/// Thread-safety: ``watch(_:handler:)`` and ``cancel()`` may be called from any thread; handlers run on one reader
/// thread, one signal at a time.
final class SignalWatcher: Sendable {
    private let signals: Set<Int32>
    private let handler: @Sendable (Int32) -> Void

    /// The watchers not cancelled, and whether the reader thread runs.
    private static let registry = Mutex<(watchers: [ObjectIdentifier: SignalWatcher], reading: Bool)>(([:], false))

    private init(signals: Set<Int32>, handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        self.handler = handler
    }

    /// Catches `signals` and calls `handler` with each one received, until ``cancel()``.
    ///
    /// - Returns: The watcher, or `nil` when the signal pipe cannot be created (then the signals keep their default
    ///   action: they end the process).
    static func watch(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) -> SignalWatcher? {
        let watcher = SignalWatcher(signals: Set(signals), handler: handler)
        let startReader = registry.withLock { registry in
            registry.watchers[ObjectIdentifier(watcher)] = watcher
            defer { registry.reading = true }
            return !registry.reading
        }
        let readEnd = signals.withUnsafeBufferPointer { ctempo_signal_pipe($0.baseAddress, Int32($0.count)) }
        guard readEnd >= 0 else {
            watcher.cancel()
            return nil
        }
        if startReader {
            let thread = Thread { readSignals(from: readEnd) }
            thread.name = "tempo signals"
            thread.start()
        }
        return watcher
    }

    /// Stops calling the handler; the signals stay caught (and are then ignored).
    func cancel() {
        _ = Self.registry.withLock { $0.watchers.removeValue(forKey: ObjectIdentifier(self)) }
    }

    private static func readSignals(from readEnd: Int32) {
        var byte: UInt8 = 0
        while true {
            let count = read(readEnd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return }
            let number = Int32(byte)
            let watchers = registry.withLock { Array($0.watchers.values) }
            for watcher in watchers where watcher.signals.contains(number) { watcher.handler(number) }
        }
    }
}
