import Testing

@testable import Tempo

#if canImport(Glibc)
import Glibc
#endif

@Suite struct TempoTimerFootprintTests {
    /// Every armed timer is one allocation of the object: an instance of at most 200 bytes takes glibc's 208-byte
    /// chunk (200 usable), one size class below the 224-byte chunk of a 201-216-byte instance.
    @Test func aTimerObjectFitsTheTwoHundredByteSizeClass() throws {
        #if canImport(Glibc)
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size"))
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        let timer = try TempoTimer(.after(.seconds(1)))
        let usable = usableSize(Unmanaged.passUnretained(timer).toOpaque())
        #expect(usable <= 200, "malloc_usable_size of a TempoTimer is \(usable)")
        #endif
    }
}
