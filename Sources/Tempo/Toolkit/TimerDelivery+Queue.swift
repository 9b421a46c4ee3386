import Dispatch

extension TimerDelivery {
    /// The queue handlers run on: the given queue, `nil` for ``TimerDelivery/immediate``, and for
    /// ``TimerDelivery/privateQueue`` the queue that `privateQueue` makes (evaluated only then).
    ///
    /// The one place the three delivery kinds are told apart for a component that owns a queue.
    func dispatchQueue(privateQueue: @autoclosure () -> DispatchQueue) -> DispatchQueue? {
        switch kind {
        case .privateQueue: privateQueue()
        case .queue(let queue): queue
        case .immediate: nil
        }
    }
}
