#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The identity of the calling thread, to tell delivered work from the test that drives the clock.
enum CurrentThread {
    typealias ID = UInt

    static var id: ID {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
