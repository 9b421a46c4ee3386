/// The pending actions of one virtual or `Clock`-driven clock, ordered by exact deadline, FIFO among equal deadlines.
///
/// Actions live in a table of slots that is reused as actions come and go, so that once the table has grown to
/// the peak number of pending actions, scheduling, cancelling and running allocate nothing. Two binary heaps of
/// small keys order the slots: one by deadline (what is due) and one by deadline + leeway (when to wake); a key
/// whose slot was cancelled or reused is skipped lazily, and the heaps are rebuilt when dead keys outnumber live
/// ones. Not thread-safe: callers keep it in a lock.
///
/// A slot is 24 bytes (its id and closure) and a key 32 (an exact instant, the id and the slot); every entry has a
/// key in each heap. ``SystemScheduler`` uses the smaller ``CompactDeadlineQueue``, which keeps deadlines at
/// nanosecond resolution; this one keeps exact instants, which virtual time needs.
package struct DeadlineQueue: Sendable {
    package typealias Action = @Sendable () -> Void

    /// What runs when a deadline is reached.
    package enum Work: Sendable {
        /// A closure, kept until it ran or was cancelled.
        case action(Action)

        /// Runs the work (outside the scheduler's lock).
        package func run() {
            switch self {
            case .action(let action): action()
            }
        }
    }

    /// The earliest pending entry.
    package struct Entry: Sendable {
        package var deadline: TimerInstant
        package var id: UInt64
    }

    /// A table row: the id of the action it holds (0 when free) and its closure (`nil` when free).
    private struct Slot: Sendable {
        var id: UInt64
        var action: Action?
    }

    /// A heap key.
    private struct Key: Comparable, Sendable {
        var instant: TimerInstant
        var id: UInt64
        var slot: UInt32
        static func < (a: Key, b: Key) -> Bool {
            a.instant != b.instant ? a.instant < b.instant : a.id < b.id
        }
    }

    private var slots: [Slot] = []
    private var freeSlots: [UInt32] = []
    private var byDeadline = BinaryHeap<Key>()
    private var byLatest = BinaryHeap<Key>()
    private var live = 0

    package init() {}

    /// Number of live (not cancelled, not run) entries.
    package var count: Int { live }

    package var isEmpty: Bool { live == 0 }

    private func isLive(_ key: Key) -> Bool {
        slots[Int(key.slot)].id == key.id
    }

    /// Adds work due at `deadline`, to run by `deadline + leeway`; returns the slot that holds it.
    ///
    /// - Parameter id: A nonzero identifier, unique among this queue's entries and increasing in scheduling
    ///   order (it orders equal deadlines).
    /// - Complexity: O(log n); no allocation once the table and heaps have grown to the peak count.
    @discardableResult
    package mutating func insert(id: UInt64, deadline: TimerInstant, leeway: Duration, work: Work) -> UInt32 {
        precondition(id != 0, "DeadlineQueue ids are nonzero")
        let row: Slot
        switch work {
        case .action(let action): row = Slot(id: id, action: action)
        }
        let slot: UInt32
        if let free = freeSlots.popLast() {
            slot = free
            slots[Int(slot)] = row
        } else {
            precondition(slots.count < Int(UInt32.max), "DeadlineQueue is full")
            slot = UInt32(slots.count)
            slots.append(row)
        }
        live += 1
        byDeadline.insert(Key(instant: deadline, id: id, slot: slot))
        byLatest.insert(Key(instant: deadline + leeway, id: id, slot: slot))
        return slot
    }

    /// Adds a closure; see ``insert(id:deadline:leeway:work:)``.
    @discardableResult
    package mutating func insert(id: UInt64, deadline: TimerInstant, leeway: Duration, action: @escaping Action)
        -> UInt32
    {
        insert(id: id, deadline: deadline, leeway: leeway, work: .action(action))
    }

    /// Removes an entry and returns its work (to be released outside the caller's lock), or `nil` if it was not
    /// live.
    ///
    /// - Complexity: amortized O(1).
    @discardableResult
    package mutating func remove(id: UInt64, slot: UInt32) -> Work? {
        guard Int(slot) < slots.count, slots[Int(slot)].id == id, id != 0 else { return nil }
        let work = release(slot)
        if byDeadline.count > 64 && byDeadline.count > 4 * live {
            compact()
        }
        return work
    }

    private mutating func release(_ slot: UInt32) -> Work? {
        let row = slots[Int(slot)]
        slots[Int(slot)] = Slot(id: 0)
        freeSlots.append(slot)
        live -= 1
        return row.action.map { .action($0) }
    }

    /// The earliest deadline of a live entry.
    package mutating func earliestDeadline() -> Entry? {
        while let top = byDeadline.min {
            if isLive(top) { return Entry(deadline: top.instant, id: top.id) }
            byDeadline.removeMin()
        }
        return nil
    }

    /// The instant by which the scheduler should wake: the minimum over live entries of deadline + leeway.
    package mutating func wakeInstant() -> TimerInstant? {
        while let top = byLatest.min {
            if isLive(top) { return top.instant }
            byLatest.removeMin()
        }
        return nil
    }

    /// Removes, in deadline order (FIFO among equals), every live entry due at `now`, appending its id and work
    /// to `due`.
    package mutating func popDue(now: TimerInstant, into due: inout [(UInt64, Work)]) {
        while let top = byDeadline.min, top.instant <= now {
            byDeadline.removeMin()
            if isLive(top), let work = release(top.slot) {
                due.append((top.id, work))
            }
        }
    }

    /// Removes and returns the next live entry if its deadline is at or before `limit`.
    package mutating func popFirst(notAfter limit: TimerInstant) -> (entry: Entry, work: Work)? {
        while let top = byDeadline.min, top.instant <= limit {
            byDeadline.removeMin()
            if isLive(top), let work = release(top.slot) {
                return (Entry(deadline: top.instant, id: top.id), work)
            }
        }
        return nil
    }

    private mutating func compact() {
        let slots = self.slots
        byDeadline.removeAll { slots[Int($0.slot)].id != $0.id }
        byLatest.removeAll { slots[Int($0.slot)].id != $0.id }
    }

    /// Checks the heaps' ordering and the slot bookkeeping (debug builds only; a no-op in release builds).
    ///
    /// - Complexity: O(n) in debug builds.
    package func _checkInvariants() {
        #if DEBUG
        byDeadline._checkInvariants()
        byLatest._checkInvariants()
        precondition(byDeadline.count >= live, "deadline heap lost entries")
        precondition(slots.count == live + freeSlots.count, "slot table and free list disagree")
        precondition(slots.filter { $0.id != 0 }.count == live, "live count is wrong")
        precondition(slots.allSatisfy { ($0.id != 0) == ($0.action != nil) }, "a closure is kept for a free slot")
        #endif
    }
}
