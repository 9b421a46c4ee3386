/// The single-threaded heart of ``TimingWheel``: a hierarchical timing wheel over a preallocated entry table.
///
/// Time is counted in ticks since the wheel's origin. Six levels of 64 slots cover 2^36 ticks; level `L`
/// holds the entries whose due tick first differs from ``now`` in base-64 digit `L`, so every entry of a
/// lower level is due before every entry of a higher one. Each slot is a circular doubly linked list
/// threaded through the entry table, with a sentinel entry per slot at the front of the table, and each
/// level has a 64-bit occupancy bitmap. Two more lists hold entries already due (``expiredList``) and
/// entries beyond the levels' reach (``overflowList``).
///
/// Entries store their exact deadline (nanoseconds since the origin, rounded up), so a slot that comes
/// due re-files (cascades) entries that are not due yet instead of firing them early, and a deadline
/// pushed later is simply stored: the entry is re-filed when its old slot comes due.
///
/// Not thread-safe: ``TimingWheel`` keeps it inside a `Mutex`.
struct WheelCore: ~Copyable {
    typealias Action = @Sendable () -> Void

    /// One timer: 32 bytes. Free entries have `sequence == 0` and chain through `next`.
    struct Entry {
        var deadline: Int64
        var sequence: UInt64
        var next: UInt32
        var prev: UInt32
        var value: UInt64
    }

    /// A closure as the table stores it. Wrapping it in a struct keeps the closure in its natural
    /// representation inside the generic pointer, so storing and taking it allocates no reabstraction thunk.
    struct StoredAction {
        var run: Action
    }

    /// A timer taken for firing, ordered by `(deadline, sequence)`.
    struct Fired: Sendable {
        var deadline: Int64
        var sequence: UInt64
        var value: UInt64
        var action: Action?
    }

    static let levelCount = 6
    static let slotBits = 6
    static let slotsPerLevel = 64
    /// Ticks covered by the levels: due ticks that differ from `now` above this bit go to the overflow list.
    static let reachBits = levelCount * slotBits
    static let expiredList = UInt32(levelCount * slotsPerLevel)
    static let overflowList = expiredList + 1
    static let sentinelCount = Int(overflowList) + 1
    static let noEntry = UInt32.max

    /// The length of a tick in nanoseconds.
    let tickNanoseconds: Int64
    /// The last tick processed: every entry due at or before it has fired.
    var now: Int64 = 0
    /// The number of armed timers.
    var count = 0
    /// The number of entries (sentinels included) the table holds.
    private(set) var capacity: Int
    var entries: UnsafeMutablePointer<Entry>
    /// Closures, parallel to `entries`; allocated on the first closure timer.
    var actions: UnsafeMutablePointer<StoredAction?>?
    var occupied: UnsafeMutablePointer<UInt64>
    var freeHead = noEntry
    var nextSequence: UInt64 = 1

    init(tickNanoseconds: Int64, initialCapacity: Int) {
        precondition(tickNanoseconds > 0)
        self.tickNanoseconds = tickNanoseconds
        capacity = Self.sentinelCount + max(initialCapacity, 1)
        entries = .allocate(capacity: capacity)
        occupied = .allocate(capacity: Self.levelCount)
        occupied.initialize(repeating: 0, count: Self.levelCount)
        for sentinel in 0..<Self.sentinelCount {
            let index = UInt32(sentinel)
            (entries + sentinel).initialize(to: Entry(deadline: 0, sequence: 0, next: index, prev: index, value: 0))
        }
        initializeFree(from: Self.sentinelCount)
    }

    deinit {
        if let actions {
            actions.deinitialize(count: capacity)
            actions.deallocate()
        }
        entries.deallocate()
        occupied.deallocate()
    }

    /// Chains the entries from `start` to the end of the table onto the free list, lowest index first.
    private mutating func initializeFree(from start: Int) {
        for index in start..<capacity {
            let next = index + 1 < capacity ? UInt32(index + 1) : freeHead
            (entries + index).initialize(to: Entry(deadline: 0, sequence: 0, next: next, prev: 0, value: 0))
        }
        freeHead = UInt32(start)
    }

    /// Doubles the table (and the closure table, if any).
    private mutating func grow() {
        let oldCapacity = capacity
        let newCapacity = oldCapacity * 2
        precondition(newCapacity < Int(Self.noEntry), "TimingWheel cannot hold more than 2^32 timers")
        let newEntries = UnsafeMutablePointer<Entry>.allocate(capacity: newCapacity)
        newEntries.moveInitialize(from: entries, count: oldCapacity)
        entries.deallocate()
        entries = newEntries
        if let actions {
            let newActions = UnsafeMutablePointer<StoredAction?>.allocate(capacity: newCapacity)
            newActions.moveInitialize(from: actions, count: oldCapacity)
            (newActions + oldCapacity).initialize(repeating: nil, count: newCapacity - oldCapacity)
            actions.deallocate()
            self.actions = newActions
        }
        capacity = newCapacity
        initializeFree(from: oldCapacity)
    }

    private mutating func ensureActions() -> UnsafeMutablePointer<StoredAction?> {
        if let actions { return actions }
        let created = UnsafeMutablePointer<StoredAction?>.allocate(capacity: capacity)
        created.initialize(repeating: nil, count: capacity)
        actions = created
        return created
    }

    /// The bytes the table holds per entry: 32, plus 16 once a closure timer was armed.
    var bytesPerEntry: Int {
        MemoryLayout<Entry>.stride + (actions == nil ? 0 : MemoryLayout<StoredAction?>.stride)
    }

    /// The first tick at or after `deadline` (nanoseconds since the origin): the tick it fires at.
    @inline(__always)
    func dueTick(_ deadline: Int64) -> Int64 {
        deadline > 0 ? (deadline - 1) / tickNanoseconds + 1 : deadline / tickNanoseconds
    }

    // MARK: Arming and cancelling

    /// Arms a timer; returns its index, its sequence number and the tick its slot comes due.
    ///
    /// - Complexity: O(1) (amortized: the table doubles when full).
    mutating func insert(deadline: Int64, value: UInt64, action: Action?) -> (UInt32, UInt64, Int64) {
        if freeHead == Self.noEntry { grow() }
        let index = freeHead
        let entry = entries + Int(index)
        freeHead = entry.pointee.next
        let sequence = nextSequence
        nextSequence &+= 1
        entry.pointee.deadline = deadline
        entry.pointee.sequence = sequence
        entry.pointee.value = value
        if let action { ensureActions()[Int(index)] = StoredAction(run: action) }
        count += 1
        let expiration = place(index, due: dueTick(deadline))
        return (index, sequence, expiration)
    }

    /// Whether `(index, sequence)` names an armed timer.
    @inline(__always)
    func isArmed(_ index: UInt32, _ sequence: UInt64) -> Bool {
        Int(index) >= Self.sentinelCount && Int(index) < capacity && sequence != 0
            && entries[Int(index)].sequence == sequence
    }

    /// Disarms a timer. Returns `nil` for a stale handle, else the closure (if any) to release outside the lock.
    ///
    /// - Complexity: O(1).
    mutating func remove(_ index: UInt32, _ sequence: UInt64) -> StoredAction?? {
        guard isArmed(index, sequence) else { return nil }
        unlink(index)
        return .some(release(index).map { StoredAction(run: $0) })
    }

    /// Moves a timer's deadline. Returns `nil` for a stale handle; else the tick its (new) slot comes due,
    /// or `Int64.max` when the deadline moved later and the entry stayed where it was.
    ///
    /// - Complexity: O(1).
    mutating func reschedule(_ index: UInt32, _ sequence: UInt64, deadline: Int64) -> Int64? {
        guard isArmed(index, sequence) else { return nil }
        let entry = entries + Int(index)
        let old = entry.pointee.deadline
        entry.pointee.deadline = deadline
        if deadline >= old { return .max }  // push later: re-filed when its current slot comes due
        unlink(index)
        return place(index, due: dueTick(deadline))
    }

    /// The deadline of an armed timer, in nanoseconds since the origin.
    func deadline(_ index: UInt32, _ sequence: UInt64) -> Int64? {
        isArmed(index, sequence) ? entries[Int(index)].deadline : nil
    }

    /// Returns an entry to the free list and hands back its closure.
    @inline(__always)
    mutating func release(_ index: UInt32) -> Action? {
        guard let actions else {
            releaseEntry(index)
            return nil
        }
        let stored = (actions + Int(index)).move()
        (actions + Int(index)).initialize(to: nil)
        releaseEntry(index)
        return stored?.run
    }

    @inline(__always)
    private mutating func releaseEntry(_ index: UInt32) {
        let entry = entries + Int(index)
        entry.pointee.sequence = 0
        entry.pointee.next = freeHead
        freeHead = index
        count -= 1
    }

    // MARK: Lists

    @inline(__always)
    mutating func link(_ index: UInt32, into list: UInt32) {
        let tail = entries[Int(list)].prev
        entries[Int(index)].prev = tail
        entries[Int(index)].next = list
        entries[Int(tail)].next = index
        entries[Int(list)].prev = index
    }

    @inline(__always)
    mutating func unlink(_ index: UInt32) {
        let prev = entries[Int(index)].prev
        let next = entries[Int(index)].next
        entries[Int(prev)].next = next
        entries[Int(next)].prev = prev
        if prev == next, prev < Self.expiredList {
            // The slot whose sentinel this is became empty.
            occupied[Int(prev) >> Self.slotBits] &= ~(1 << (UInt64(prev) & 63))
        }
    }

    @inline(__always)
    func isEmpty(_ list: UInt32) -> Bool {
        entries[Int(list)].next == list
    }

    /// Detaches a whole list; returns its first entry (or the sentinel itself when empty).
    mutating func detach(_ list: UInt32) -> UInt32 {
        let first = entries[Int(list)].next
        let last = entries[Int(list)].prev
        entries[Int(last)].next = Self.noEntry
        entries[Int(list)].next = list
        entries[Int(list)].prev = list
        return first == list ? Self.noEntry : first
    }
}
