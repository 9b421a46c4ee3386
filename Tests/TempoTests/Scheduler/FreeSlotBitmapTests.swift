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
            switch random.next() % 8 {
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
        bitmap.truncate(to: 64)
        #expect(bitmap.lowest == nil)
        #expect(!bitmap.contains(70_000))
    }
}
