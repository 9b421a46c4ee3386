import Testing

@testable import Tempo

@Suite struct FreeSlotBitmapTests {
    /// Random frees, takes of the lowest free slot and truncations, against a set of free slots; slots range past
    /// 2^18 so that every level of the bitmap fills and empties.
    @Test func theLowestFreeSlotMatchesASetUnderRandomOperations() {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var bitmap = FreeSlotBitmap()
        var reference = Set<Int>()
        var limit = 300_000
        for step in 0..<30_000 {
            switch random.next() % 9 {
            case 0...3:
                let slot = Int(random.next() % UInt64(limit))
                if !reference.contains(slot) {
                    bitmap.insert(slot)
                    reference.insert(slot)
                }
            case 4...6:
                #expect(bitmap.lowest == reference.min(), "seed \(seed) step \(step)")
                if let lowest = reference.min() {
                    bitmap.remove(lowest)
                    reference.remove(lowest)
                }
            case 7:
                // From a free slot when there is one, so that short ranges are often all free.
                let start = reference.randomElement(using: &random) ?? Int(random.next() % UInt64(limit))
                let range = start..<(start + Int(random.next() % 4))
                let expected = range.allSatisfy { reference.contains($0) }
                #expect(bitmap.containsAll(range) == expected, "seed \(seed) step \(step) range \(range)")
            default:
                if random.next() % 50 == 0 {
                    limit = Int(random.next() % 300_000) & ~63
                    bitmap.truncate(to: limit)
                    reference = reference.filter { $0 < limit }
                    limit = max(limit, 64)
                }
            }
            if step % 1_000 == 0 { bitmap._checkInvariants() }
        }
        #expect(bitmap.lowest == reference.min(), "seed \(seed)")
        for slot in reference { #expect(bitmap.contains(slot), "seed \(seed) slot \(slot)") }
        bitmap._checkInvariants()
    }

    @Test func anEmptyBitmapHasNoLowestSlot() {
        var bitmap = FreeSlotBitmap()
        #expect(bitmap.lowest == nil)
        bitmap.insert(70_000)
        bitmap.insert(5)
        #expect(bitmap.lowest == 5)
        bitmap.remove(5)
        #expect(bitmap.lowest == 70_000)
        #expect(bitmap.containsAll(70_000..<70_000))
        #expect(bitmap.containsAll(70_000..<70_001))
        #expect(!bitmap.containsAll(69_999..<70_001))
        bitmap.truncate(to: 64)
        #expect(bitmap.lowest == nil)
        #expect(!bitmap.contains(70_000))
    }

    /// A run of free slots across word and summary boundaries: every range inside it is all free, every range that
    /// reaches past either end is not.
    @Test func containsAllSeesEveryWordARangeSpans() {
        var bitmap = FreeSlotBitmap()
        for slot in 100..<5_000 { bitmap.insert(slot) }
        for range in [100..<5_000, 100..<101, 127..<129, 128..<192, 4_095..<4_097, 4_999..<5_000, 300..<300] {
            #expect(bitmap.containsAll(range), "\(range)")
        }
        for range in [99..<101, 100..<5_001, 0..<64, 4_999..<5_064, 5_000..<5_001, 70_000..<70_001] {
            #expect(!bitmap.containsAll(range), "\(range)")
        }
        bitmap.remove(2_000)
        #expect(!bitmap.containsAll(100..<5_000))
        #expect(bitmap.containsAll(2_001..<5_000))
    }
}
