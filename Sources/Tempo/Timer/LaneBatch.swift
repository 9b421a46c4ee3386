import Synchronization

/// The default-delivery mailboxes of one driver wake, handed to the delivery pool as one entry that the driver thread
/// and any number of pool workers run together: each takes the next lane with one atomic increment, so a lane costs
/// no lock of the pool and wakes no thread of its own (issue #44).
///
/// A lane is in one batch at most (a timer's mailbox has at most one drain scheduled), and whoever takes it runs it to
/// the end: so a timer's handler runs still never overlap and keep their order. A lane that blocks holds only the
/// thread that took it; the others go on taking the rest, and the batch stays at the head of the pool's ring until
/// every lane was taken, so a worker that the pool starts for stuck workers joins it too.
///
/// Made by one driver thread's ``DriverContext``, which fills it and submits it
/// (``DeliveryPool/submit(batch:helpers:)``); the batch of a wake's last lanes the driver thread runs
/// itself and takes back out of the ring (``DeliveryPool/finish(_:)``), and fills again for a later wake once no worker
/// runs it any more (``isReusable``; otherwise the context makes a new one).
final class LaneBatch: @unchecked Sendable {
    // @unchecked: `storage` and `count` are written only by the owning driver thread, before the batch is submitted
    // and while it is reusable (out of the ring, no worker in it); workers reach the batch through the pool's lock
    // after it was submitted, and each slot is taken (read and cleared) by exactly one thread, the one whose increment
    // of `next` returned its index.

    private var storage: UnsafeMutablePointer<(any DeliveryLane)?>
    private var capacity: Int
    /// The number of lanes filled in.
    private(set) var count = 0
    /// The index the next taker gets (past `count`: nothing left).
    private let next = Atomic<Int>(0)
    /// Pool workers running the batch; the owner refills it only at zero.
    private let members = Atomic<Int>(0)
    /// Whether the batch is in the pool's ring; read and written under the pool's lock only.
    var inRing = false

    init(capacity: Int = 64) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: nil, count: capacity)
    }

    deinit {
        storage.deinitialize(count: capacity)
        storage.deallocate()
    }

    /// Whether no pool worker runs the batch any more, so that its owner may fill it again (acquiring: the workers'
    /// last reads of it happened before).
    var isReusable: Bool { members.load(ordering: .acquiring) == 0 }

    /// Whether every lane was taken (they may still be running).
    var isExhausted: Bool { next.load(ordering: .relaxed) >= count }

    /// The lanes not taken yet.
    var remaining: Int { max(0, count - next.load(ordering: .relaxed)) }

    /// Fills the batch with `lanes`, in order, and empties `lanes` (keeping its capacity).
    func fill(_ lanes: inout [any DeliveryLane]) {
        reserve(lanes.count)
        var index = 0
        while index < lanes.count {
            storage[index] = lanes[index]
            index += 1
        }
        lanes.removeAll(keepingCapacity: true)
        count = index
        next.store(0, ordering: .relaxed)
    }

    /// Fills the batch with `first` and then `rest`, in that order, and empties `rest` (keeping its capacity).
    /// Allocates only to grow past the most lanes of one wake so far.
    func fill(first: any DeliveryLane, rest: inout [any DeliveryLane]) {
        reserve(rest.count + 1)
        storage[0] = first
        var index = 0
        while index < rest.count {
            storage[index + 1] = rest[index]
            index += 1
        }
        rest.removeAll(keepingCapacity: true)
        count = index + 1
        next.store(0, ordering: .relaxed)
    }

    /// Makes room for `needed` lanes.
    private func reserve(_ needed: Int) {
        if needed > capacity {
            storage.deinitialize(count: capacity)
            storage.deallocate()
            capacity = max(needed, capacity * 2)
            storage = .allocate(capacity: capacity)
            storage.initialize(repeating: nil, count: capacity)
        }
    }

    /// Takes the next lane, or `nil` when every lane was taken.
    @inline(__always)
    func take() -> (any DeliveryLane)? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < count else { return nil }
        return storage[index].take()
    }

    /// Runs lanes until none is left to take.
    func run() {
        while let lane = take() {
            lane.runDeliveries()
        }
    }

    /// Runs lanes until none is left to take, calling `beforeEach` before each.
    func run(_ beforeEach: () -> Void) {
        while let lane = take() {
            beforeEach()
            lane.runDeliveries()
        }
    }

    /// A pool worker joins (under the pool's lock) or leaves (after its last ``take()``).
    func join() { members.add(1, ordering: .relaxed) }
    func leave() { members.subtract(1, ordering: .releasing) }
}
