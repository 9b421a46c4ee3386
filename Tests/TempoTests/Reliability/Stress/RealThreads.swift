import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a body on freshly created POSIX threads, released together by a start gate.
///
/// Real threads rather than `concurrentPerform`: ThreadSanitizer did not report races between
/// `concurrentPerform` tasks on this toolchain, and each thread here is a separate kernel thread that the
/// scheduler preempts at arbitrary points.
enum RealThreads {
    /// Starts `count` threads that each run `body(index)` once all of them exist, and waits for all to end.
    static func run(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let gate = StartGate(count: count)
        var threads: [pthread_t] = []
        for index in 0..<count {
            let context = Unmanaged.passRetained(
                ThreadContext {
                    gate.wait()
                    body(index)
                }
            ).toOpaque()
            threads.append(spawn(context))
        }
        for thread in threads {
            pthread_join(thread, nil)
        }
    }

    #if canImport(Darwin)
    private static func spawn(_ context: UnsafeMutableRawPointer) -> pthread_t {
        var thread: pthread_t?
        let result = pthread_create(&thread, nil, { ThreadContext.enter($0) }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        return thread!
    }
    #else
    private static func spawn(_ context: UnsafeMutableRawPointer) -> pthread_t {
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { ThreadContext.enter($0!) }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        return thread
    }
    #endif
}

/// The body of one thread, passed through `pthread_create`'s context pointer.
private final class ThreadContext {
    let body: () -> Void

    init(_ body: @escaping () -> Void) { self.body = body }

    static func enter(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        Unmanaged<ThreadContext>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }
}

/// Holds every thread until all have arrived, so that their operations really overlap.
private final class StartGate: Sendable {
    private let arrived = Atomic<Int>(0)
    private let count: Int

    init(count: Int) { self.count = count }

    func wait() {
        arrived.add(1, ordering: .sequentiallyConsistent)
        while arrived.load(ordering: .sequentiallyConsistent) < count {
            sched_yield()
        }
    }
}
