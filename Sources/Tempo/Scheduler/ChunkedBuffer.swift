/// Fixed-size storage for a growing table, allocated in chunks of ``chunkSize`` elements, which its owner may give
/// back from the end.
///
/// Growing adds one chunk and copies nothing, so the memory held is the elements in use plus at most one chunk
/// (an array that doubles holds up to twice what it uses), and a table that stays within the chunks it has never
/// allocates again. ``shrink()`` frees the last chunk. Every element of an allocated chunk is initialized (to the
/// filler given at creation), so any index below ``capacity`` may be read or assigned. Not thread-safe: its owner
/// keeps it in a lock.
struct ChunkedBuffer<Element>: ~Copyable {
    /// Elements per chunk: a power of two, so that an index splits into chunk and offset with a shift and a mask.
    static var chunkShift: Int { 10 }
    static var chunkSize: Int { 1 << chunkShift }

    /// The chunks, in index order; `directoryCapacity` entries allocated, `chunkCount` of them used.
    private var directory: UnsafeMutablePointer<UnsafeMutablePointer<Element>>
    private var directoryCapacity: Int
    private var chunkCount = 0
    /// The value new chunks are filled with, in memory of its own: Swift 6.3.1 does not run the `deinit` of a
    /// noncopyable generic struct that stores a value of its generic type (seen in debug builds and in release
    /// builds without whole-module optimization: every buffer leaked), while a stored pointer is fine.
    private let filler: UnsafeMutablePointer<Element>

    /// Creates an empty buffer whose chunks start out filled with `filler`. Allocates a small directory, no chunk.
    init(filler: Element) {
        self.filler = .allocate(capacity: 1)
        self.filler.initialize(to: filler)
        directoryCapacity = 4
        directory = .allocate(capacity: directoryCapacity)
    }

    deinit {
        for chunk in 0..<chunkCount {
            directory[chunk].deinitialize(count: Self.chunkSize)
            directory[chunk].deallocate()
        }
        directory.deallocate()
        filler.deinitialize(count: 1)
        filler.deallocate()
    }

    /// The number of usable elements: `chunkSize` times the number of chunks.
    var capacity: Int { chunkCount << Self.chunkShift }

    /// Adds a chunk of `chunkSize` elements, all equal to the filler.
    ///
    /// - Complexity: O(`chunkSize`); the directory doubles when full, which copies one pointer per chunk.
    mutating func grow() {
        if chunkCount == directoryCapacity {
            let larger = UnsafeMutablePointer<UnsafeMutablePointer<Element>>.allocate(capacity: 2 * directoryCapacity)
            larger.moveInitialize(from: directory, count: chunkCount)
            directory.deallocate()
            directory = larger
            directoryCapacity *= 2
        }
        let chunk = UnsafeMutablePointer<Element>.allocate(capacity: Self.chunkSize)
        chunk.initialize(repeating: filler.pointee, count: Self.chunkSize)
        directory[chunkCount] = chunk
        chunkCount += 1
    }

    /// Removes the last chunk, deinitializing its elements; ``capacity`` drops by `chunkSize`. The directory keeps its
    /// size (one pointer per chunk ever used).
    ///
    /// - Precondition: There is a chunk.
    /// - Complexity: O(`chunkSize`).
    mutating func shrink() {
        precondition(chunkCount > 0, "ChunkedBuffer.shrink() without a chunk")
        chunkCount -= 1
        directory[chunkCount].deinitialize(count: Self.chunkSize)
        directory[chunkCount].deallocate()
    }

    /// The element at `index`, which must be below ``capacity`` (checked in debug builds).
    subscript(index: Int) -> Element {
        get {
            assert(index >= 0 && index < capacity, "ChunkedBuffer index \(index) out of range")
            return directory[index >> Self.chunkShift][index & (Self.chunkSize - 1)]
        }
        set {
            assert(index >= 0 && index < capacity, "ChunkedBuffer index \(index) out of range")
            directory[index >> Self.chunkShift][index & (Self.chunkSize - 1)] = newValue
        }
    }

    /// Replaces the element at `index` with `newValue` and returns the old one, moving both (no copy, so no retain
    /// or release of a reference).
    mutating func exchange(at index: Int, with newValue: consuming Element) -> Element {
        assert(index >= 0 && index < capacity, "ChunkedBuffer index \(index) out of range")
        let element = directory[index >> Self.chunkShift] + (index & (Self.chunkSize - 1))
        let old = element.move()
        element.initialize(to: newValue)
        return old
    }

    /// Exchanges the elements at two indices below ``capacity``.
    mutating func swapAt(_ i: Int, _ j: Int) {
        let value = self[i]
        self[i] = self[j]
        self[j] = value
    }
}

// @unchecked: the buffer owns its chunks and is not copyable, so the memory is reached only through the one value
// that owns it; moving that value to another thread moves the elements, which are themselves Sendable.
extension ChunkedBuffer: @unchecked Sendable where Element: Sendable {}
