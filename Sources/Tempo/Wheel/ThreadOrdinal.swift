import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small number per thread, handed out in the order threads first ask for one: how ``ShardedTimingWheel``
/// spreads threads over its shards. Kept in a POSIX thread-specific slot (a few nanoseconds to read).
enum ThreadOrdinal {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed with \(status)")
        return key
    }()
    private static let next = Atomic<Int>(1)

    /// The calling thread's ordinal: 1 for the first thread that asked, 2 for the second, and so on.
    static var current: Int {
        if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) }
        let ordinal = next.wrappingAdd(1, ordering: .relaxed).oldValue
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: ordinal))
        return ordinal
    }
}
