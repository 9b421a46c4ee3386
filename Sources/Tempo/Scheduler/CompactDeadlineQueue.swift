/// The pending actions of one ``SystemScheduler`` clock, ordered by deadline at nanosecond resolution, FIFO among
/// equal deadlines: the compact counterpart of ``DeadlineQueue``, sized for hundreds of thousands of armed timers.
///
/// Deadlines are kept as whole nanoseconds (rounded up, saturated to `Int64`), the resolution of the kernel clocks
/// the scheduler reads, so an action is due exactly when the clock's reading in nanoseconds has reached its
/// deadline; deadlines within the same nanosecond run in scheduling order. (``DeadlineQueue`` keeps exact
/// instants, for virtual time.)
///
/// An action costs 36 bytes: a row of the slot table (8 bytes of target and 8 of id in one column, 4 of sequence
/// number in another, so that no row has padding) and a 16-byte heap key (deadline, sequence number, slot); an
/// action with leeway has a second key, by deadline + leeway. Tables and heaps grow in chunks of 1,024 entries (see
/// ``ChunkedBuffer``), so scheduling, cancelling and running allocate nothing while the number of pending actions
/// stays within the chunks there are. A new action takes the lowest free slot (``FreeSlotBitmap``), so actions armed
/// after a burst, or re-armed during it, fill the low slots. Once the last two chunks of the table hold no live
/// action (or a heap has two chunks' worth of room), the last chunk is given back: when a burst's actions have
/// ended, the memory returns to what the actions left need, with one chunk of slack so that arming and cancelling at
/// a chunk boundary does not allocate each time. An action that outlives a burst keeps its slot, and the chunk it is
/// in. Closures, which Tempo's own timers never use, live in a dictionary by slot.
///
/// A key whose slot was cancelled, ran or was reused has a sequence number that no longer matches the slot's: it is
/// skipped when it reaches the top of its heap, and the heaps are compacted when dead keys outnumber live ones.
/// Sequence numbers are 32 bits: just before they run out, the live entries are renumbered in deadline order,
/// which keeps both staleness checks and FIFO order exact. Not thread-safe: callers keep it in a lock.
struct CompactDeadlineQueue: ~Copyable {
    typealias Action = @Sendable () -> Void

    /// What runs when a deadline is reached.
    enum Work: Sendable {
        /// A closure, kept until it ran or was cancelled.
        case action(Action)
        /// One of Tempo's objects, told the id of the action that came due: no closure is allocated per arm.
        case target(ScheduledTargetReference, id: UInt64)

        /// Runs the work (outside the scheduler's lock); `now`, the clock's reading of the wake that found it due, is
        /// handed to a target so that it need not read the clock again (`nil`: it reads the clock).
        func run(now: TimerInstant? = nil) {
            switch self {
            case .action(let action): action()
            case .target(let target, let id): target.scheduledDeadlineReached(id: id, now: now)
            }
        }
    }

    /// A heap key. Live when ``sequence`` equals the sequence number of its slot.
    struct Key: Sendable {
        /// Nanoseconds since the clock's origin (the deadline, or the deadline + leeway in the wake heap).
        var instant: Int64
        var sequence: UInt32
        var slot: UInt32

        /// Whether the key's slot still holds the entry the key was made for. A key whose slot lies in a chunk the
        /// table gave back is dead.
        func isLive(in sequences: borrowing ChunkedBuffer<UInt32>) -> Bool {
            Int(slot) < sequences.capacity && sequences[Int(slot)] == sequence
        }

        func precedes(_ other: Key) -> Bool {
            instant != other.instant ? instant < other.instant : sequence < other.sequence
        }
    }

    /// A row of the slot table: the target (`nil` for a closure or a free slot) and the action's id (0 for a free
    /// slot).
    struct Row {
        var target: ScheduledTargetReference?
        var id: UInt64
    }

    // The slot table and the two deadline heaps, and the members that release a slot, are internal rather than
    // private only for the due side in CompactDeadlineQueue+Due.swift; nothing else in the package touches them.

    /// The slot table, in two columns (no padding): the rows, and the sequence number of each slot's keys (0 for a
    /// free slot).
    var rows = ChunkedBuffer<Row>(filler: Row(target: nil, id: 0))
    var sequences = ChunkedBuffer<UInt32>(filler: 0)
    /// Slots handed out since the table last had this size; slots below this are live or free in ``freeSlots``.
    private var usedSlots = 0
    /// The free slots below ``usedSlots``.
    private var freeSlots = FreeSlotBitmap()
    /// The closures of the slots that hold one.
    private var actions: [UInt32: Action] = [:]
    /// Entries without leeway, by deadline.
    var punctual = KeyHeap()
    /// Entries with leeway, by deadline.
    var lenient = KeyHeap()
    /// Entries with leeway, by deadline + leeway.
    private var lenientWake = KeyHeap()
    private var nextSequence: UInt32
    private var live = 0

    /// Creates an empty queue.
    ///
    /// - Parameter firstSequence: The first sequence number to hand out (tests start near the end of the range to
    ///   reach the renumbering).
    init(firstSequence: UInt32 = 1) {
        precondition(firstSequence != 0, "sequence number 0 marks a free slot")
        nextSequence = firstSequence
    }

    /// Number of live (not cancelled, not run) entries.
    var count: Int { live }

    var isEmpty: Bool { live == 0 }

    /// An entry's instants in whole nanoseconds since the clock's origin, the keys it has in the heaps: its deadline
    /// (rounded up, saturated to `Int64`) and, with a leeway, the instant by which it must run (deadline + leeway,
    /// rounded up). Made once per arm: ``ClockDriver`` reads the wake from it before the entry is placed.
    struct Due {
        /// The deadline.
        var deadline: Int64
        /// The instant by which the entry must run: the deadline without leeway.
        var wake: Int64
        /// Whether the entry has a leeway (a key in the wake heap beside its deadline's).
        var isLenient: Bool

        /// The keys of an entry due at `deadline` with `leeway`.
        @inline(__always)
        init(deadline: TimerInstant, leeway: Duration) {
            self.deadline = deadline.nanosecondsRoundedUp
            isLenient = !leeway.isZero
            wake = isLenient ? (deadline + leeway).nanosecondsRoundedUp : self.deadline
        }
    }

    /// Adds work due at `deadline`, to run by `deadline + leeway`; returns the slot that holds it.
    ///
    /// - Parameter id: A nonzero identifier, unique among this queue's entries over its life (it identifies the
    ///   entry to ``remove(id:slot:)``, and a target is told it when the work runs).
    /// - Complexity: O(log n); no allocation once the table and heaps have grown to the peak count.
    @discardableResult
    mutating func insert(id: UInt64, deadline: TimerInstant, leeway: Duration, work: consuming Work) -> UInt32 {
        insert(id: id, due: Due(deadline: deadline, leeway: leeway), work: work)
    }

    /// Adds work due at `due`'s instants; returns the slot that holds it (see ``insert(id:deadline:leeway:work:)``).
    @discardableResult
    mutating func insert(id: UInt64, due: Due, work: consuming Work) -> UInt32 {
        switch consume work {
        case .action(let action):
            let (slot, sequence) = takeSlot(id: id)
            rows[slot].id = id
            actions[UInt32(slot)] = action
            return enqueue(slot: slot, sequence: sequence, due: due)
        case .target(let target, _):
            return insert(id: id, due: due, target: target)
        }
    }

    /// Adds a call of `target` due at `due`'s instants; returns the slot that holds it.
    ///
    /// The arm path of every ``SystemScheduler`` timer: `target` is moved into its row with no reference count on the
    /// way (binding a target out of a ``Work`` copies it and then destroys the work: a retain and a release per arm).
    ///
    /// - Complexity: O(log n); no allocation once the table and heaps have grown to the peak count.
    @discardableResult
    mutating func insert(id: UInt64, due: Due, target: consuming ScheduledTargetReference) -> UInt32 {
        let (slot, sequence) = takeSlot(id: id)
        // A free row holds no target: the exchange moves `target` in with no release.
        _ = rows.exchange(at: slot, with: Row(target: consume target, id: id))
        return enqueue(slot: slot, sequence: sequence, due: due)
    }

    /// Takes the lowest free slot (or a new one) for the entry `id`, and the next sequence number, recorded for the
    /// slot.
    @inline(__always)
    private mutating func takeSlot(id: UInt64) -> (slot: Int, sequence: UInt32) {
        precondition(id != 0, "CompactDeadlineQueue ids are nonzero")
        if nextSequence == .max { renumber() }
        let sequence = nextSequence
        nextSequence += 1
        let slot: Int
        if let lowest = freeSlots.lowest {
            slot = lowest
            freeSlots.remove(slot)
        } else {
            precondition(usedSlots < Int(UInt32.max), "CompactDeadlineQueue is full")
            slot = usedSlots
            usedSlots += 1
            if slot == rows.capacity {
                rows.grow()
                sequences.grow()
            }
        }
        sequences[slot] = sequence
        return (slot, sequence)
    }

    /// Counts the entry in `slot` live and pushes its keys: the deadline's, and with a leeway the latest instant's.
    @inline(__always)
    private mutating func enqueue(slot: Int, sequence: UInt32, due: Due) -> UInt32 {
        live += 1
        let key = Key(instant: due.deadline, sequence: sequence, slot: UInt32(slot))
        if due.isLenient {
            lenient.insert(key)
            lenientWake.insert(Key(instant: due.wake, sequence: sequence, slot: UInt32(slot)))
        } else {
            punctual.insert(key)
        }
        return UInt32(slot)
    }

    /// Removes an entry and returns its work (to be released outside the caller's lock), or `nil` if it was not
    /// live.
    ///
    /// - Complexity: amortized O(1).
    @discardableResult
    mutating func remove(id: UInt64, slot: UInt32) -> Work? {
        let index = Int(slot)
        guard id != 0, index < usedSlots, sequences[index] != 0, rows[index].id == id else { return nil }
        return release(index)
    }

    /// Frees `slot` and returns its work, then compacts the heaps if dead keys outnumber live ones and gives unused
    /// chunks of the slot table back.
    mutating func release(_ slot: Int) -> Work {
        let work = detach(slot)
        compactIfMostlyDead()
        // Only a slot of the last two chunks can leave them both unused.
        if slot >= rows.capacity - 2 * Self.chunkSize { releaseUnusedChunks() }
        return work
    }

    /// Frees `slot` and returns its work, leaving the heaps and the slot table's size as they are (a bulk take walks
    /// the heap meanwhile, and cleans up once at its end).
    mutating func detach(_ slot: Int) -> Work {
        // Moves the target out of the row (no retain or release), leaving the free row in its place.
        var row = rows.exchange(at: slot, with: Row(target: nil, id: 0))
        let work: Work
        if let target = row.target.take() {
            work = .target(target, id: row.id)
        } else {
            // A live slot without a target holds a closure.
            work = .action(actions.removeValue(forKey: UInt32(slot))!)
        }
        sequences[slot] = 0
        freeSlots.insert(slot)
        live -= 1
        return work
    }

    /// Compacts the heaps when their keys, dead ones included, are more than four times the live entries.
    mutating func compactIfMostlyDead() {
        let keys = punctual.count + lenient.count + lenientWake.count
        if keys > 64 && keys > 4 * live {
            compact()
        }
    }

    /// ``ChunkedBuffer/chunkSize`` of the slot table.
    private static var chunkSize: Int { ChunkedBuffer<UInt32>.chunkSize }

    /// Whether the last two chunks of the slot table hold no live slot: every slot of theirs below ``usedSlots`` is
    /// free (the slots above it were never handed out since the table had this size).
    ///
    /// Counted first: the live slots must all fit below the two chunks, so with more live slots than that the answer
    /// is no without reading the free set. (The free set's words were read on every removal from the last two chunks,
    /// which is every removal while the table has two chunks: a scan of up to 32 words that stops at the first live
    /// slot, from the bottom, where a queue cancelled in arming order has its free slots.)
    private var lastTwoChunksAreUnused: Bool {
        guard rows.capacity >= 2 * Self.chunkSize else { return false }
        let start = rows.capacity - 2 * Self.chunkSize
        guard live <= start else { return false }
        return freeSlots.containsAll(start..<max(start, usedSlots))
    }

    /// Gives back the slot table's last chunk while it and the chunk before it hold no live slot.
    ///
    /// - Complexity: O(`chunkSize`) per chunk given back; checking reads at most 32 words of ``freeSlots``, and stops
    ///   at the first word with a live slot.
    mutating func releaseUnusedChunks() {
        while lastTwoChunksAreUnused {
            let start = rows.capacity - Self.chunkSize
            freeSlots.truncate(to: start)
            usedSlots = min(usedSlots, start)
            rows.shrink()
            sequences.shrink()
        }
    }

    /// The number of slots the table has room for (a multiple of the chunk size), for tests.
    var slotCapacity: Int { rows.capacity }

    /// The number of keys the three heaps have room for, for tests.
    var keyCapacity: Int { punctual.capacity + lenient.capacity + lenientWake.capacity }

    /// Pops dead keys off the top of `heap`; returns its live top, if any.
    static func liveTop(_ heap: inout KeyHeap, _ sequences: borrowing ChunkedBuffer<UInt32>) -> Key? {
        while let top = heap.min {
            if top.isLive(in: sequences) { return top }
            heap.removeMin()
        }
        return nil
    }

    /// The earliest live deadline key, from whichever of the two deadline heaps has it.
    mutating func earliest() -> (key: Key, punctual: Bool)? {
        let first = Self.liveTop(&punctual, sequences)
        let second = Self.liveTop(&lenient, sequences)
        switch (first, second) {
        case (nil, nil): return nil
        case (let first?, nil): return (first, true)
        case (nil, let second?): return (second, false)
        case (let first?, let second?): return first.precedes(second) ? (first, true) : (second, false)
        }
    }

    /// The instant by which the scheduler should wake: the minimum over live entries of deadline + leeway.
    mutating func wakeInstant() -> TimerInstant? {
        wakeNanoseconds().map { TimerInstant(offset: .nanoseconds($0)) }
    }

    /// ``wakeInstant()`` in nanoseconds since the clock's origin.
    mutating func wakeNanoseconds() -> Int64? {
        let first = Self.liveTop(&punctual, sequences)?.instant
        let second = Self.liveTop(&lenientWake, sequences)?.instant
        switch (first, second) {
        case (nil, nil): return nil
        case (let first?, nil): return first
        case (nil, let second?): return second
        case (let first?, let second?): return min(first, second)
        }
    }

    /// Drops every dead key and restores the heap order.
    ///
    /// - Complexity: O(n).
    private mutating func compact() {
        punctual.removeDead(sequences)
        lenient.removeDead(sequences)
        lenientWake.removeDead(sequences)
    }

    /// Gives the live entries the sequence numbers 1, 2, ... in deadline order (keeping their order among equal
    /// deadlines), so that numbering can go on without wrapping around.
    ///
    /// Runs once every 2^32 - 1 insertions; allocates nothing (the heaps are sorted in place).
    ///
    /// - Complexity: O(n log n).
    private mutating func renumber() {
        compact()
        punctual.sortAscending()
        lenient.sortAscending()
        // Merge the two sorted runs by (deadline, sequence), handing out new numbers in that order.
        var next: UInt32 = 1
        var i = 0
        var j = 0
        while i < punctual.count || j < lenient.count {
            let takeFirst = j == lenient.count || (i < punctual.count && punctual[i].precedes(lenient[j]))
            if takeFirst {
                sequences[Int(punctual[i].slot)] = next
                punctual[i].sequence = next
                i += 1
            } else {
                sequences[Int(lenient[j].slot)] = next
                lenient[j].sequence = next
                j += 1
            }
            next += 1
        }
        for index in 0..<lenientWake.count {
            lenientWake[index].sequence = sequences[Int(lenientWake[index].slot)]
        }
        // A sorted array is a heap; the wake heap's order among equal instants may have changed.
        lenientWake.heapify()
        nextSequence = next
    }

    /// Checks the heaps' ordering and the slot bookkeeping (debug builds only; a no-op in release builds).
    ///
    /// - Complexity: O(n) in debug builds.
    func _checkInvariants() {
        #if DEBUG
        punctual._checkInvariants()
        lenient._checkInvariants()
        lenientWake._checkInvariants()
        var liveSlots = 0
        for slot in 0..<usedSlots where sequences[slot] != 0 {
            precondition(rows[slot].id != 0, "a live slot has no id")
            liveSlots += 1
            precondition(sequences[slot] < nextSequence, "a slot's sequence number was not handed out yet")
            precondition(
                (rows[slot].target == nil) == (actions[UInt32(slot)] != nil), "a live slot has no work, or two")
        }
        precondition(liveSlots == live, "live count is wrong")
        var free = 0
        var highestLive = -1
        for slot in 0..<usedSlots {
            if sequences[slot] == 0 {
                precondition(freeSlots.contains(slot), "a free slot is not in the free set")
                precondition(rows[slot].target == nil && rows[slot].id == 0, "a free slot holds a target or an id")
                free += 1
            } else {
                precondition(!freeSlots.contains(slot), "a live slot is in the free set")
                highestLive = slot
            }
        }
        precondition(!freeSlots.contains(usedSlots), "a slot above the used ones is in the free set")
        precondition(free + live == usedSlots, "slot table and free set disagree")
        precondition(usedSlots <= rows.capacity, "slots were handed out beyond the table")
        // Counted from the slots themselves, not from the free set the check below reads.
        precondition(
            rows.capacity < 2 * Self.chunkSize || highestLive >= rows.capacity - 2 * Self.chunkSize,
            "two unused chunks were kept at the end of the table")
        // The free set read whole, without the count that ``lastTwoChunksAreUnused`` checks first.
        let lastTwo = max(0, rows.capacity - 2 * Self.chunkSize)
        precondition(
            rows.capacity < 2 * Self.chunkSize || !freeSlots.containsAll(lastTwo..<max(lastTwo, usedSlots)),
            "the free set says the last two chunks are unused")
        freeSlots._checkInvariants()
        precondition(actions.count <= live, "a closure is kept for a free slot")
        precondition(punctual.count + lenient.count >= live, "deadline heaps lost entries")
        #endif
    }
}

// @unchecked: every stored property is Sendable but for the chunked buffers, which are uniquely owned (the queue is
// not copyable) and hold Sendable elements.
extension CompactDeadlineQueue: @unchecked Sendable {}
