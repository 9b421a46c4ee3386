/// A priority queue of scheduled actions ordered by deadline, FIFO among equal deadlines.
///
/// Cancellation is lazy: a cancelled entry stays in the heap until it reaches the top, and the queue
/// compacts itself when dead entries outnumber live ones. Not thread-safe: callers keep it in a `Mutex`.
package struct DeadlineQueue: Sendable {
    package typealias Action = @Sendable () -> Void

    package struct Entry: Sendable {
        package var deadline: TimerInstant
        package var latest: TimerInstant
        package var id: UInt64
    }

    private var byDeadline = BinaryHeap<Key>()
    private var byLatest = BinaryHeap<Key>()
    private var actions: [UInt64: (entry: Entry, action: Action)] = [:]

    package init() {}

    private struct Key: Comparable, Sendable {
        var instant: TimerInstant
        var id: UInt64
        static func < (a: Key, b: Key) -> Bool {
            a.instant != b.instant ? a.instant < b.instant : a.id < b.id
        }
    }

    /// Number of live (not cancelled, not run) entries.
    package var count: Int { actions.count }

    package var isEmpty: Bool { actions.isEmpty }

    /// Adds an action.
    ///
    /// - Complexity: O(log n).
    package mutating func insert(id: UInt64, deadline: TimerInstant, leeway: Duration, action: @escaping Action) {
        let latest = deadline + leeway
        actions[id] = (Entry(deadline: deadline, latest: latest, id: id), action)
        byDeadline.insert(Key(instant: deadline, id: id))
        if leeway != .zero {
            byLatest.insert(Key(instant: latest, id: id))
        }
    }

    /// Removes an action and returns it (to be released outside the caller's lock), or `nil` if it was
    /// not live.
    ///
    /// - Complexity: amortized O(1).
    @discardableResult
    package mutating func remove(id: UInt64) -> Action? {
        guard let removed = actions.removeValue(forKey: id) else { return nil }
        if byDeadline.count > 64 && byDeadline.count > 4 * actions.count {
            compact()
        }
        return removed.action
    }

    /// The earliest deadline of a live entry.
    package mutating func earliestDeadline() -> Entry? {
        while let top = byDeadline.min {
            if let live = actions[top.id] { return live.entry }
            byDeadline.removeMin()
        }
        return nil
    }

    /// The instant by which the scheduler should wake: the minimum over live entries of deadline + leeway.
    package mutating func wakeInstant() -> TimerInstant? {
        guard let first = earliestDeadline() else { return nil }
        var wake = first.latest
        while let top = byLatest.min {
            guard actions[top.id] != nil else {
                byLatest.removeMin()
                continue
            }
            wake = min(wake, top.instant)
            break
        }
        return wake
    }

    /// Removes and returns, in deadline order (FIFO among equals), every live entry due at `now`.
    package mutating func popDue(now: TimerInstant, into due: inout [(UInt64, Action)]) {
        while let top = byDeadline.min, top.instant <= now {
            byDeadline.removeMin()
            if let live = actions.removeValue(forKey: top.id) {
                due.append((top.id, live.action))
            }
        }
    }

    /// Removes and returns the next live entry if its deadline is at or before `limit`.
    package mutating func popFirst(notAfter limit: TimerInstant) -> (entry: Entry, action: Action)? {
        while let top = byDeadline.min, top.instant <= limit {
            byDeadline.removeMin()
            if let live = actions.removeValue(forKey: top.id) { return live }
        }
        return nil
    }

    private mutating func compact() {
        byDeadline = BinaryHeap(actions.values.map { Key(instant: $0.entry.deadline, id: $0.entry.id) })
        byLatest = BinaryHeap(
            actions.values.filter { $0.entry.latest != $0.entry.deadline }
                .map { Key(instant: $0.entry.latest, id: $0.entry.id) }
        )
    }

    /// Checks the heaps' ordering and that every live entry is in the deadline heap (debug builds only; a no-op
    /// in release builds).
    ///
    /// - Complexity: O(n) in debug builds.
    package func _checkInvariants() {
        #if DEBUG
        byDeadline._checkInvariants()
        byLatest._checkInvariants()
        precondition(byDeadline.count >= actions.count, "deadline heap lost entries")
        #endif
    }
}

/// A minimal array-backed binary min-heap.
///
/// The core library depends on the toolchain only, so this stands in for swift-collections' `Heap`.
package struct BinaryHeap<Element: Comparable & Sendable>: Sendable {
    private var storage: [Element] = []

    package init() {}

    package init(_ elements: some Sequence<Element>) {
        storage = Array(elements)
        var index = storage.count / 2 - 1
        while index >= 0 {
            siftDown(index)
            index -= 1
        }
    }

    package var count: Int { storage.count }
    package var min: Element? { storage.first }

    /// - Complexity: O(log n).
    package mutating func insert(_ element: Element) {
        storage.append(element)
        var child = storage.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard storage[child] < storage[parent] else { break }
            storage.swapAt(child, parent)
            child = parent
        }
    }

    /// - Complexity: O(log n).
    @discardableResult
    package mutating func removeMin() -> Element? {
        guard !storage.isEmpty else { return nil }
        storage.swapAt(0, storage.count - 1)
        let result = storage.removeLast()
        if !storage.isEmpty { siftDown(0) }
        return result
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < storage.count else { return }
            let right = left + 1
            var smallest = left
            if right < storage.count && storage[right] < storage[left] { smallest = right }
            guard storage[smallest] < storage[parent] else { return }
            storage.swapAt(parent, smallest)
            parent = smallest
        }
    }

    /// Checks the heap order (debug builds only; a no-op in release builds).
    ///
    /// - Complexity: O(n) in debug builds.
    package func _checkInvariants() {
        #if DEBUG
        for index in storage.indices.dropFirst() {
            precondition(!(storage[index] < storage[(index - 1) / 2]), "heap order violated at \(index)")
        }
        #endif
    }
}
