#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real OS thread for stress tests (ThreadSanitizer catches races between pthreads more reliably than
/// between `concurrentPerform` work items).
final class Thread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    private let body: Box
    #if canImport(Glibc)
    private var handle = pthread_t()
    #else
    private var handle: pthread_t?
    #endif

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = Box(body)
    }

    func start() {
        let context = Unmanaged.passRetained(body).toOpaque()
        let result = pthread_create(
            &handle,
            nil,
            { raw in
                #if canImport(Glibc)
                let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
                #else
                let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
                #endif
                box.body()
                return nil
            },
            context
        )
        precondition(result == 0, "pthread_create failed: \(result)")
    }

    func join() {
        #if canImport(Glibc)
        pthread_join(handle, nil)
        #else
        pthread_join(handle!, nil)
        #endif
    }

    /// Runs `count` copies of `body` (given their index) on real threads and waits for all of them.
    static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let threads = (0..<count).map { index in Thread { body(index) } }
        for thread in threads { thread.start() }
        for thread in threads { thread.join() }
    }
}
