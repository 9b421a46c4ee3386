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
        // The smallest of 16: glibc may hand a request a free chunk one size class larger when the rest would be
        // too small to split off (seen once in the parallel suite: 216 usable), but not to every one of 16 timers;
        // an instance past 200 bytes gets 216 or more for all of them.
        let timers = try (0..<16).map { _ in try TempoTimer(.after(.seconds(1))) }
        let usable = timers.map { usableSize(Unmanaged.passUnretained($0).toOpaque()) }.min() ?? .max
        #expect(usable <= 200, "malloc_usable_size of a TempoTimer is \(usable) at the smallest of 16")
        #endif
    }
}
