import Dispatch

/// Tells the main queue apart from other queues, for ``TimerHandler/mainActor(_:)``.
enum MainQueue {
    /// Whether `queue` is the main queue (`DispatchQueue.main` returns a new wrapper object on each call on
    /// Linux, so identity cannot tell; a queue-specific value set on the main queue can).
    static func contains(_ queue: DispatchQueue) -> Bool {
        _ = marked
        return queue.getSpecific(key: key) != nil
    }

    /// Marks the main queue.
    private static let key = DispatchSpecificKey<Bool>()

    /// Set once, the first time a queue is checked.
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)
}
