// The one lock type of the package.
//
// In normal builds `TempoMutex` is `Synchronization.Mutex`. With the package trait `TSanVisibleLocks` (CI's
// ThreadSanitizer run: `swift test --sanitize=thread --traits TSanVisibleLocks`) it is a lock on
// `pthread_mutex_t`, because on Linux ThreadSanitizer does not see `Mutex`'s contended path (its futex calls live
// in the uninstrumented Synchronization library) and reports correctly locked state as racing, while it
// intercepts every pthread call. The two have the same `withLock` shape, so no call site knows which it has.

#if TEMPO_TSAN_VISIBLE_LOCKS
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// @unchecked Sendable: `value` is only read or written between `pthread_mutex_lock` and `pthread_mutex_unlock`
// of the mutex this object owns, so it is never accessed from two threads at once.
/// A value guarded by a `pthread_mutex_t`, visible to ThreadSanitizer (the `TSanVisibleLocks` build).
///
/// Thread safety: every access goes through ``withLock(_:)``; the lock is not recursive.
public final class TempoMutex<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates a lock guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        value = initialValue
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    ///
    /// - Parameter body: Reads or changes the value; must not call back into this lock.
    /// - Returns: What `body` returns.
    @inline(__always)
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#else
public import Synchronization

/// The package's lock: `Synchronization.Mutex` (a lock on `pthread_mutex_t` in the `TSanVisibleLocks` build).
public typealias TempoMutex<Value: ~Copyable> = Mutex<Value>
#endif
