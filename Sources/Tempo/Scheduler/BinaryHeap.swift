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
    /// The smallest element (indexed directly: `first` boxes large elements in unoptimized builds).
    package var min: Element? { storage.isEmpty ? nil : storage[0] }

    /// Removes every element that matches `shouldBeRemoved` and restores the heap order.
    ///
    /// - Complexity: O(n).
    package mutating func removeAll(where shouldBeRemoved: (Element) -> Bool) {
        storage.removeAll(where: shouldBeRemoved)
        var index = storage.count / 2 - 1
        while index >= 0 {
            siftDown(index)
            index -= 1
        }
    }

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
