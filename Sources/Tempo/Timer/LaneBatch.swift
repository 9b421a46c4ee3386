import CTempoShims
import Synchronization

/// The default-delivery work of one driver wake, handed to the delivery pool as one entry that the driver thread and
/// any number of pool workers run together: each takes the next member with one atomic increment, so a member costs
/// no lock of the pool and wakes no thread of its own (issue #44).
///
/// A member is a timer's mailbox to drain (``Member/lane(_:)``), or, in a mass expiry, a default-delivery timer whose
/// deadline the wake found due (``Member/due(_:)``): whoever takes that one runs the timer's transition and then
/// its drain, on the same thread, so that the timer's memory is touched by one processor only and its mailbox costs no
/// hand-over (the driver thread only sorts the wake's due work; see ``DriverContext/runDue(now:)``).
///
/// A timer's handlers run only in its drain, and a timer has one drain at most at a time (the transition that queues
/// a delivery starts a drain only when none is scheduled); whoever takes a member runs it to the end: so a timer's
/// handler runs still never overlap and keep their order, whichever threads take its members. A member that blocks
/// holds only the thread that took it; the others go on taking the rest, and the batch stays at the head of the pool's
/// ring until every member was taken, so a worker that the pool starts for stuck workers joins it too.
///
/// Made by one driver thread's ``DriverContext``, which fills it and submits it
/// (``DeliveryPool/submit(batch:helpers:)``); the batch of a wake's last lanes the driver thread runs
/// itself and takes back out of the ring (``DeliveryPool/finish(_:)``), and fills again for a later wake once no worker
/// runs it any more (``isReusable``; otherwise the context makes a new one).
final class LaneBatch: @unchecked Sendable {
    // @unchecked: `storage`, `count` and `now` are written only by the owning driver thread, before the batch is
    // submitted and while it is reusable (out of the ring, no worker in it); workers reach the batch through the pool's
    // lock after it was submitted, and each slot is taken (read and cleared) by exactly one thread, the one whose
    // increment of `next` returned its index. A batch handed over for good (`isHandedOver`) gets a new owner through
    // the pool's lock (`DeliveryPool.takeSpentBatch()`), once no worker runs it any more.

    /// What a batch runs.
    enum Member {
        /// A timer's mailbox, drained until it is empty.
        case lane(any DeliveryLane)
        /// A default-delivery timer of ``SystemScheduler`` whose action the wake found due (the work holds
        /// ``ScheduledTargetReference/pooledTimer(_:)`` and the action's id): its transition runs, then, if that
        /// queued a delivery, its drain, on the thread that took it.
        case due(CompactDeadlineQueue.Work)
    }

    private var storage: UnsafeMutablePointer<Member?>
    /// For each ``Member/due(_:)`` member, its timer object's address (`nil` for a lane): a taker prefetches the
    /// member ``prefetchDistance`` places ahead, so that its cache misses overlap the work of the members before it.
    /// Never dereferenced; the member may have been taken and its timer freed when it is prefetched (a prefetch never
    /// faults).
    private var addresses: UnsafeMutablePointer<UnsafeRawPointer?>
    private var capacity: Int
    /// The number of members filled in.
    private(set) var count = 0
    /// The clock's reading of the wake whose members the batch holds (what a ``Member/due(_:)`` member's
    /// transition is told, as if it ran on the driver thread).
    var now = TimerInstant(offset: .zero)
    /// The index the next taker gets (past `count`: nothing left).
    private let next = Atomic<Int>(0)
    /// Pool workers running the batch; the owner refills it only at zero.
    private let workers = Atomic<Int>(0)
    /// Whether the batch is in the pool's ring; read and written under the pool's lock only.
    var inRing = false
    /// Whether its driver thread's context gave the batch up to the pool for good (``DriverContext/flush(to:armsCheck:)``):
    /// the pool then keeps it for reuse once it left the ring (``DeliveryPool/takeSpentBatch()``). Written by the
    /// owner before it submits the batch, and by the pool under its lock when it hands the batch to a new owner; read
    /// under the pool's lock.
    var isHandedOver = false

    init(capacity: Int = 64) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: nil, count: capacity)
        addresses = .allocate(capacity: capacity)
        addresses.initialize(repeating: nil, count: capacity)
    }

    deinit {
        storage.deinitialize(count: capacity)
        storage.deallocate()
        addresses.deallocate()
    }

    /// Whether no pool worker runs the batch any more, so that its owner may fill it again (acquiring: the workers'
    /// last reads of it happened before).
    var isReusable: Bool { workers.load(ordering: .acquiring) == 0 }

    /// Whether a pool worker runs the batch (read under the pool's lock, where workers join).
    var hasWorkers: Bool { workers.load(ordering: .relaxed) > 0 }

    /// Whether every member was taken (they may still be running).
    var isExhausted: Bool { next.load(ordering: .relaxed) >= count }

    /// The members not taken yet.
    var remaining: Int { max(0, count - next.load(ordering: .relaxed)) }

    /// Empties a batch that was run to the end (every member taken), to fill it again.
    func reset() {
        count = 0
        next.store(0, ordering: .relaxed)
    }

    /// Appends `member` (moved in: no reference count is touched); `address` is a due member's timer object
    /// (see ``addresses``). Allocates only to grow past the most members of one batch so far.
    @inline(__always)
    func append(_ member: consuming Member, address: UnsafeRawPointer? = nil) {
        if count == capacity { grow() }
        // The slot holds `nil` (never filled, or taken): nothing to destroy, so the member is moved in over it.
        (storage + count).initialize(to: Optional(consume member))
        addresses[count] = address
        count += 1
    }

    /// How many places ahead of the member it takes a taker prefetches (see ``addresses``): a member's work (about
    /// 200 ns) is longer than a miss to memory, so two places hide the misses of one taker and of two taking in turns.
    static let prefetchDistance = 2

    /// Doubles the storage, moving the members over.
    private func grow() {
        let larger = UnsafeMutablePointer<Member?>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: storage, count: capacity)
        (larger + capacity).initialize(repeating: nil, count: capacity)
        storage.deallocate()
        storage = larger
        let largerAddresses = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: capacity * 2)
        largerAddresses.moveInitialize(from: addresses, count: capacity)
        (largerAddresses + capacity).initialize(repeating: nil, count: capacity)
        addresses.deallocate()
        addresses = largerAddresses
        capacity *= 2
    }

    /// Takes the next member, or `nil` when every member was taken.
    @inline(__always)
    func take() -> Member? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < count else { return nil }
        if index + Self.prefetchDistance < count, let ahead = addresses[index + Self.prefetchDistance] {
            ctempo_prefetch_object(ahead)
        }
        return storage[index].take()
    }

    /// Runs `member` on the calling thread.
    @inline(__always)
    private func run(_ member: consuming Member) {
        switch consume member {
        case .lane(let lane): lane.runDeliveries()
        case .due(let work):
            if case .target(.pooledTimer(let timer), let id) = work {
                timer.scheduledActionReachedOnPool(id: id, now: now)
            } else {
                work.run(now: now)
            }
        }
    }

    /// Runs members until none is left to take.
    func run() {
        while let member = take() {
            run(member)
        }
    }

    /// Runs members until none is left to take, calling `beforeEach` before each.
    func run(_ beforeEach: () -> Void) {
        while let member = take() {
            beforeEach()
            run(member)
        }
    }

    /// The lanes filled in and not taken yet, in order (for tests).
    var lanes: [any DeliveryLane] {
        var lanes: [any DeliveryLane] = []
        var index = next.load(ordering: .relaxed)
        while index < count {
            if case .lane(let lane) = storage[index] { lanes.append(lane) }
            index += 1
        }
        return lanes
    }

    /// A pool worker joins (under the pool's lock) or leaves (after its last ``take()``).
    func join() { workers.add(1, ordering: .relaxed) }
    func leave() { workers.subtract(1, ordering: .releasing) }
}
