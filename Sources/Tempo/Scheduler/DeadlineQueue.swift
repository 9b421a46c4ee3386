/// The pending actions of one clock, ordered by deadline, FIFO among equal deadlines.
///
/// Actions live in a table of slots that is reused as actions come and go, so that once the table has grown to
/// the peak number of pending actions, scheduling, cancelling and running allocate nothing. Two binary heaps of
/// small keys order the slots: one by deadline (what is due) and one by deadline + leeway (when to wake); a key
/// whose slot was cancelled or reused is skipped lazily, and the heaps are rebuilt when dead keys outnumber live
/// ones. Not thread-safe: callers keep it in a lock.
///
/// A slot is 32 bytes and a key 32: a slot holds a target and its tag inline, while closures, which Tempo's own
/// timers never use, live in a dictionary by slot (which also keeps its storage once grown).
package struct DeadlineQueue: Sendable {
    package typealias Action = @Sendable () -> Void

    /// What runs when a deadline is reached.
    package enum Work: Sendable {
        /// A closure, kept until it ran or was cancelled.
        case action(Action)
        /// An object told which of its arms came due: no closure is allocated per arm.
        case target(any ScheduledTarget, tag: UInt64)

        /// Runs the work (outside the scheduler's lock).
        package func run() {
            switch self {
            case .action(let action): action()
            case .target(let target, let tag): target.scheduledDeadlineReached(tag: tag)
            }
        }
    }

    /// The earliest pending entry.
    package struct Entry: Sendable {
        package var deadline: TimerInstant
        package var id: UInt64
    }

    /// A table row: the id of the action it holds (0 when free) and its target with the target's tag (`nil` for a
    /// closure, which is in ``actions``). No `Work` here: its closure case would add a tag byte, and 8 bytes of
    /// stride, to every row.
    private struct Slot: Sendable {
        var id: UInt64
        var tag: UInt64 = 0
        var target: (any ScheduledTarget)?
    }

    /// A heap key: `hasLeeway` (of the slot's entry) fills what would be padding.
    private struct Key: Comparable, Sendable {
        var instant: TimerInstant
        var id: UInt64
        var slot: UInt32
        var hasLeeway = false
        static func < (a: Key, b: Key) -> Bool {
            a.instant != b.instant ? a.instant < b.instant : a.id < b.id
        }
    }

    private var slots: [Slot] = []
    /// The closures of the slots that hold one.
    private var actions: [UInt32: Action] = [:]
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
        case .action: row = Slot(id: id)
        case .target(let target, let tag): row = Slot(id: id, tag: tag, target: target)
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
        if case .action(let action) = work {
            actions[slot] = action
        }
        live += 1
        let hasLeeway = leeway != .zero
        byDeadline.insert(Key(instant: deadline, id: id, slot: slot, hasLeeway: hasLeeway))
        if hasLeeway {
            byLatest.insert(Key(instant: deadline + leeway, id: id, slot: slot, hasLeeway: true))
        }
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
        if let target = row.target {
            return .target(target, tag: row.tag)
        }
        return actions.removeValue(forKey: slot).map { .action($0) }
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
    ///
    /// An entry without leeway that has the earliest deadline is that minimum; otherwise it is the smallest
    /// deadline + leeway of the entries with leeway.
    package mutating func wakeInstant() -> TimerInstant? {
        guard let first = earliestDeadline() else { return nil }
        guard byDeadline.min!.hasLeeway else { return first.deadline }
        while let top = byLatest.min {
            if isLive(top) { return top.instant }
            byLatest.removeMin()
        }
        return first.deadline
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
        precondition(
            actions.keys.allSatisfy { slots[Int($0)].id != 0 && slots[Int($0)].target == nil },
            "a closure is kept for a free slot or a target's slot")
        #endif
    }
}
