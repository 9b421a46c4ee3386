import Testing

@testable import Tempo

@Suite struct ChunkedBufferTests {
    /// Every element of a new chunk reads as the filler, and assignments land where they are read, across chunks.
    /// (That dropping a buffer frees it is checked by CI's LeakSanitizer run, which caught every buffer leaking while
    /// the buffer stored its filler as a value of its generic type.)
    @Test func aNewChunkIsFilledAndIndexedAcrossChunks() {
        var buffer = ChunkedBuffer<Int>(filler: -1)
        buffer.grow()
        buffer.grow()
        let size = ChunkedBuffer<Int>.chunkSize
        #expect(buffer.capacity == 2 * size)
        #expect(buffer[0] == -1 && buffer[2 * size - 1] == -1)
        buffer[size] = 7
        #expect(buffer[size] == 7 && buffer[size - 1] == -1)
        #expect(buffer.exchange(at: size, with: 8) == 7)
        #expect(buffer[size] == 8)
    }

    @Test func shrinkingGivesBackTheLastChunkAndGrowingRefillsIt() {
        var buffer = ChunkedBuffer<Int>(filler: -1)
        buffer.grow()
        buffer.grow()
        let size = ChunkedBuffer<Int>.chunkSize
        buffer[size] = 7
        buffer[0] = 3
        buffer.shrink()
        #expect(buffer.capacity == size)
        #expect(buffer[0] == 3)
        buffer.grow()
        #expect(buffer[size] == -1)
    }
}
