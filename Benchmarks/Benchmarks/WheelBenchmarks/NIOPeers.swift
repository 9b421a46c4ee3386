import NIOCore
import NIOPosix

// The peers that need SwiftNIO; the others are in TimerPeers.swift, a link to the one copy in
// Sources/TempoTools/Peers/ that `tempo bench` uses too.

/// A closure that runs on the event loop while the caller waits for it (`withOwner`), so nothing it
/// touches is used by two threads at once.
struct Unchecked<Value>: @unchecked Sendable {
    var value: Value
}

/// SwiftNIO `scheduleTask` on one event loop, called on that loop.
final class NIOTaskPeer: TimerPeer {
    static let name = "NIOScheduleTask"
    static let shutdownCancelsAll = true  // cancelling one by one scans the loop's queue each time
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop: any EventLoop
    let counter: FireCounter

    init(capacity: Int, counter: FireCounter) {
        self.counter = counter
        loop = group.next()
    }

    func withOwner(_ body: @escaping () -> Void) {
        let box = Unchecked(value: body)
        try! loop.submit { box.value() }.wait()
    }
    func arm(after delay: Duration) -> Scheduled<Void> {
        loop.scheduleTask(in: .nanoseconds(delay.wholeNanoseconds)) { [counter] in
            counter.fire()
        }
    }
    func arm(atUptime nanoseconds: UInt64) -> Scheduled<Void> {
        loop.scheduleTask(deadline: .uptimeNanoseconds(nanoseconds)) { [counter] in counter.fire() }
    }
    func cancel(_ token: Scheduled<Void>) { token.cancel() }
    func shutdown() { try? group.syncShutdownGracefully() }
}

/// SwiftNIO `scheduleCallback` (NIOScheduledCallbackHandler) on one event loop, called on that loop.
final class NIOCallbackPeer: TimerPeer {
    struct Handler: NIOScheduledCallbackHandler, Sendable {
        let counter: FireCounter
        func handleScheduledCallback(eventLoop: some EventLoop) { counter.fire() }
    }

    static let name = "NIOScheduleCallback"
    static let shutdownCancelsAll = true
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop: any EventLoop
    let handler: Handler

    init(capacity: Int, counter: FireCounter) {
        handler = Handler(counter: counter)
        loop = group.next()
    }

    func withOwner(_ body: @escaping () -> Void) {
        let box = Unchecked(value: body)
        try! loop.submit { box.value() }.wait()
    }
    func arm(after delay: Duration) -> NIOScheduledCallback {
        try! loop.scheduleCallback(in: .nanoseconds(delay.wholeNanoseconds), handler: handler)
    }
    func arm(atUptime nanoseconds: UInt64) -> NIOScheduledCallback {
        try! loop.scheduleCallback(at: .uptimeNanoseconds(nanoseconds), handler: handler)
    }
    func cancel(_ token: NIOScheduledCallback) { token.cancel() }
    func shutdown() { try? group.syncShutdownGracefully() }
}
