import Dispatch

/// The queue behind ``TimerDelivery/privateQueue``: one concurrent queue shared by every timer.
///
/// A concurrent queue made with `DispatchQueue(label:attributes:)` targets Dispatch's non-overcommit worker pool,
/// which runs about one thread per core, so thousands of timers due together use a handful of threads (a serial
/// queue per timer would target the overcommit pool and could start a thread for each). Each timer still drains
/// its own mailbox one delivery at a time, so its handler runs never overlap and keep their order. No timer owns
/// a queue, which saves a queue's allocations per timer.
enum DeliveryPool {
    static let queue = DispatchQueue(label: "tempo.delivery", attributes: .concurrent)
}
