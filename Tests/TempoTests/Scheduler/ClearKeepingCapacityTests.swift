import Testing

@testable import Tempo

/// `Array.clearKeepingCapacity()`, which a driver thread's wake uses instead of `removeAll(keepingCapacity: true)`:
/// every length empties, the buffer is kept (a wake allocates no array), and the elements are released.
@Suite struct ClearKeepingCapacityTests {
    final class Element {}

    @Test(arguments: [0, 1, 3, 4, 5, 64])
    func emptiesEveryLengthAndKeepsTheBuffer(count: Int) {
        var values = Array(0..<count)
        values.reserveCapacity(64)
        let capacity = values.capacity
        values.clearKeepingCapacity()
        #expect(values.isEmpty)
        #expect(values.capacity == capacity)
    }

    @Test(arguments: [1, 4, 5, 64])
    func releasesTheElements(count: Int) {
        var elements = (0..<count).map { _ in Element() }
        let watched = elements.map { Weak($0) }
        elements.clearKeepingCapacity()
        #expect(elements.isEmpty)
        #expect(watched.allSatisfy { $0.element == nil })
    }

    @Test func aSharedBufferIsLeftToItsOtherOwner() {
        var values = [1, 2, 3]
        let other = values
        values.clearKeepingCapacity()
        #expect(values.isEmpty)
        #expect(other == [1, 2, 3])
    }

    struct Weak {
        weak var element: Element?
        init(_ element: Element) { self.element = element }
    }
}
