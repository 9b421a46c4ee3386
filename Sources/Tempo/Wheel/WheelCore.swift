/// The single-threaded heart of ``TimingWheel``: a hierarchical timing wheel over a preallocated entry table.
///
/// The table grows in fixed chunks of ``chunkSize`` entries (never by doubling, never moving an entry).
///
/// Time is counted in ticks since the wheel's origin. Six levels of 64 slots cover 2^36 ticks; level `L`
/// holds the entries whose due tick first differs from ``now`` in base-64 digit `L`, so every entry of a
/// lower level is due before every entry of a higher one. Each slot is a circular doubly linked list
/// threaded through the entry table, with a sentinel entry per slot at the front of the table, and each
/// level has a 64-bit occupancy bitmap. Two more lists hold entries already due (``expiredList``) and
/// entries beyond the levels' reach (``overflowList``); a third holds entries armed with a delay whose deadline
/// is not known yet (``provisionalList``): the next clock reading under the wheel's lock settles them.
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
    /// Entries armed with a delay whose deadline is set at the next clock reading (``insertProvisional``).
    static let provisionalList = overflowList + 1
    static let sentinelCount = Int(provisionalList) + 1
    /// Set in the stored sequence number of a provisional entry (handles carry the number without it).
    static let provisionalBit: UInt64 = 1 << 63
    static let noEntry = UInt32.max

    /// Entries per table chunk: the table grows by one chunk (32 KiB of entries) at a time, so it holds at most
    /// one chunk more than the peak number of timers, and growing never copies or moves an entry.
    static let chunkBits = 10
    static let chunkSize = 1 << chunkBits
    static let chunkMask = chunkSize - 1

    /// The length of a tick in nanoseconds.
    let tickNanoseconds: Int64
    /// The last tick processed: every entry due at or before it has fired.
    var now: Int64 = 0
    /// The number of armed timers.
    var count = 0
    /// The number of entries (sentinels included) the table holds: a whole number of chunks.
    private(set) var capacity: Int
    /// The chunk directory: entry `i` lives in chunk `i >> chunkBits` at row `i & chunkMask`.
    var chunks: UnsafeMutablePointer<UnsafeMutablePointer<Entry>>
    /// Closures, in chunks parallel to `chunks`; allocated on the first closure timer.
    var actionChunks: UnsafeMutablePointer<UnsafeMutablePointer<StoredAction?>>?
    /// The number of pointers the directories have room for.
    private var directoryCapacity: Int
    var occupied: UnsafeMutablePointer<UInt64>
    var freeHead = noEntry
    var nextSequence: UInt64 = 1

    init(tickNanoseconds: Int64, initialCapacity: Int) {
        precondition(tickNanoseconds > 0)
        self.tickNanoseconds = tickNanoseconds
        let chunkCount = (Self.sentinelCount + max(initialCapacity, 1) + Self.chunkMask) >> Self.chunkBits
        directoryCapacity = max(chunkCount, 4)
        chunks = .allocate(capacity: directoryCapacity)
        for chunk in 0..<chunkCount { (chunks + chunk).initialize(to: .allocate(capacity: Self.chunkSize)) }
        capacity = chunkCount << Self.chunkBits
        occupied = .allocate(capacity: Self.levelCount)
        occupied.initialize(repeating: 0, count: Self.levelCount)
        for sentinel in 0..<Self.sentinelCount {
            let index = UInt32(sentinel)
            entry(index).initialize(to: Entry(deadline: 0, sequence: 0, next: index, prev: index, value: 0))
        }
        initializeFree(from: Self.sentinelCount)
    }

    deinit {
        let chunkCount = capacity >> Self.chunkBits
        if let actionChunks {
            for chunk in 0..<chunkCount {
                actionChunks[chunk].deinitialize(count: Self.chunkSize)
                actionChunks[chunk].deallocate()
            }
            actionChunks.deallocate()
        }
        for chunk in 0..<chunkCount { chunks[chunk].deallocate() }
        chunks.deallocate()
        occupied.deallocate()
    }

    /// The entry at `index`.
    @inline(__always)
    func entry(_ index: UInt32) -> UnsafeMutablePointer<Entry> {
        chunks[Int(index) >> Self.chunkBits] + (Int(index) & Self.chunkMask)
    }

    /// The closure slot of entry `index`; only once ``actionChunks`` exists.
    @inline(__always)
    func actionSlot(_ index: UInt32, in actionChunks: UnsafeMutablePointer<UnsafeMutablePointer<StoredAction?>>)
        -> UnsafeMutablePointer<StoredAction?>
    {
        actionChunks[Int(index) >> Self.chunkBits] + (Int(index) & Self.chunkMask)
    }

    /// Chains the entries from `start` to the end of the table onto the free list, lowest index first.
    private mutating func initializeFree(from start: Int) {
        for index in start..<capacity {
            let next = index + 1 < capacity ? UInt32(index + 1) : freeHead
            entry(UInt32(index)).initialize(to: Entry(deadline: 0, sequence: 0, next: next, prev: 0, value: 0))
        }
        freeHead = UInt32(start)
    }

    /// Adds one chunk to the table (and to the closure table, if any); no entry moves.
    private mutating func grow() {
        let chunk = capacity >> Self.chunkBits
        precondition(capacity + Self.chunkSize < Int(Self.noEntry), "TimingWheel cannot hold more than 2^32 timers")
        if chunk == directoryCapacity { growDirectories() }
        (chunks + chunk).initialize(to: .allocate(capacity: Self.chunkSize))
        if let actionChunks {
            let created = UnsafeMutablePointer<StoredAction?>.allocate(capacity: Self.chunkSize)
            created.initialize(repeating: nil, count: Self.chunkSize)
            (actionChunks + chunk).initialize(to: created)
        }
        let oldCapacity = capacity
        capacity += Self.chunkSize
        initializeFree(from: oldCapacity)
    }

    /// Doubles the directories (a pointer per chunk: 8 KiB at a million timers).
    private mutating func growDirectories() {
        let chunkCount = capacity >> Self.chunkBits
        let newCapacity = directoryCapacity * 2
        let newChunks = UnsafeMutablePointer<UnsafeMutablePointer<Entry>>.allocate(capacity: newCapacity)
        newChunks.moveInitialize(from: chunks, count: chunkCount)
        chunks.deallocate()
        chunks = newChunks
        if let actionChunks {
            let newActions = UnsafeMutablePointer<UnsafeMutablePointer<StoredAction?>>.allocate(capacity: newCapacity)
            newActions.moveInitialize(from: actionChunks, count: chunkCount)
            actionChunks.deallocate()
            self.actionChunks = newActions
        }
        directoryCapacity = newCapacity
    }

    private mutating func ensureActions() -> UnsafeMutablePointer<UnsafeMutablePointer<StoredAction?>> {
        if let actionChunks { return actionChunks }
        let created = UnsafeMutablePointer<UnsafeMutablePointer<StoredAction?>>.allocate(capacity: directoryCapacity)
        for chunk in 0..<(capacity >> Self.chunkBits) {
            let rows = UnsafeMutablePointer<StoredAction?>.allocate(capacity: Self.chunkSize)
            rows.initialize(repeating: nil, count: Self.chunkSize)
            (created + chunk).initialize(to: rows)
        }
        actionChunks = created
        return created
    }

    /// The heap bytes the tables hold: entries, closures, directories and bitmaps (not the `Mutex` around them).
    var tableBytes: Int {
        let entryBytes = capacity * MemoryLayout<Entry>.stride
        let actionBytes = actionChunks == nil ? 0 : capacity * MemoryLayout<StoredAction?>.stride
        let directoryBytes =
            directoryCapacity * MemoryLayout<UnsafeMutableRawPointer>.stride * (actionChunks == nil ? 1 : 2)
        return entryBytes + actionBytes + directoryBytes + Self.levelCount * MemoryLayout<UInt64>.stride
    }

    /// The first tick at or after `deadline` (nanoseconds since the origin): the tick it fires at.
    @inline(__always)
    func dueTick(_ deadline: Int64) -> Int64 {
        deadline > 0 ? (deadline - 1) / tickNanoseconds + 1 : deadline / tickNanoseconds
    }

    // MARK: Arming and cancelling

    /// Takes a free entry, growing the table by a chunk when none is left.
    @inline(__always)
    mutating func allocateEntry(value: UInt64, action: Action?) -> (UInt32, UInt64) {
        if freeHead == Self.noEntry { grow() }
        let index = freeHead
        let entry = entry(index)
        freeHead = entry.pointee.next
        let sequence = nextSequence
        nextSequence &+= 1
        entry.pointee.value = value
        if let action { actionSlot(index, in: ensureActions()).pointee = StoredAction(run: action) }
        count += 1
        return (index, sequence)
    }

    /// Arms a timer; returns its index, its sequence number and the tick its slot comes due.
    ///
    /// - Complexity: O(1); the table grows by a chunk when full.
    mutating func insert(deadline: Int64, value: UInt64, action: Action?) -> (UInt32, UInt64, Int64) {
        let (index, sequence) = allocateEntry(value: value, action: action)
        let entry = entry(index)
        entry.pointee.deadline = deadline
        entry.pointee.sequence = sequence
        let expiration = place(index, due: dueTick(deadline))
        return (index, sequence, expiration)
    }

    /// Whether `(index, sequence)` names an armed timer.
    @inline(__always)
    func isArmed(_ index: UInt32, _ sequence: UInt64) -> Bool {
        Int(index) >= Self.sentinelCount && Int(index) < capacity && sequence != 0
            && entry(index).pointee.sequence & ~Self.provisionalBit == sequence
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
        let entry = entry(index)
        if isProvisional(index) {
            entry.pointee.sequence = sequence
        } else {
            let old = entry.pointee.deadline
            entry.pointee.deadline = deadline
            if deadline >= old { return .max }  // push later: re-filed when its current slot comes due
        }
        entry.pointee.deadline = deadline
        unlink(index)
        return place(index, due: dueTick(deadline))
    }

    /// The deadline of an armed timer that is not provisional, in nanoseconds since the origin.
    func deadline(_ index: UInt32, _ sequence: UInt64) -> Int64? {
        isArmed(index, sequence) && !isProvisional(index) ? entry(index).pointee.deadline : nil
    }

    /// Returns an entry to the free list and hands back its closure.
    @inline(__always)
    mutating func release(_ index: UInt32) -> Action? {
        guard let actionChunks else {
            releaseEntry(index)
            return nil
        }
        let slot = actionSlot(index, in: actionChunks)
        let stored = slot.move()
        slot.initialize(to: nil)
        releaseEntry(index)
        return stored?.run
    }

    @inline(__always)
    private mutating func releaseEntry(_ index: UInt32) {
        let entry = entry(index)
        entry.pointee.sequence = 0
        entry.pointee.next = freeHead
        freeHead = index
        count -= 1
    }

    // MARK: Lists

    @inline(__always)
    mutating func link(_ index: UInt32, into list: UInt32) {
        let sentinel = entry(list)
        let tail = sentinel.pointee.prev
        let new = entry(index)
        new.pointee.prev = tail
        new.pointee.next = list
        entry(tail).pointee.next = index
        sentinel.pointee.prev = index
    }

    @inline(__always)
    mutating func unlink(_ index: UInt32) {
        let prev = entry(index).pointee.prev
        let next = entry(index).pointee.next
        entry(prev).pointee.next = next
        entry(next).pointee.prev = prev
        if prev == next, prev < Self.expiredList {
            // The slot whose sentinel this is became empty.
            occupied[Int(prev) >> Self.slotBits] &= ~(1 << (UInt64(prev) & 63))
        }
    }

    @inline(__always)
    func isEmpty(_ list: UInt32) -> Bool {
        entry(list).pointee.next == list
    }

    /// Detaches a whole list; returns its first entry (or ``noEntry`` when empty).
    mutating func detach(_ list: UInt32) -> UInt32 {
        let sentinel = entry(list)
        let first = sentinel.pointee.next
        let last = sentinel.pointee.prev
        entry(last).pointee.next = Self.noEntry
        sentinel.pointee.next = list
        sentinel.pointee.prev = list
        return first == list ? Self.noEntry : first
    }
}
