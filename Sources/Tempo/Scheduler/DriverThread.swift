#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Detached pthreads that run a closure until it returns: the scheduler's driver threads and the delivery pool's
/// workers.
package enum DriverThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// The number of processors currently online (at least 1).
    package static var activeProcessorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    package static func start(name: String, _ run: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(
            &thread,
            nil,
            { raw in
                let pointer: UnsafeMutableRawPointer? = raw
                let body = Unmanaged<Body>.fromOpaque(pointer!).takeRetainedValue()
                body.run()
                return nil
            },
            context
        )
        precondition(status == 0, "pthread_create failed with \(status)")
        #if canImport(Darwin)
        if let thread { pthread_detach(thread) }
        #else
        pthread_detach(thread)
        #endif
    }
}
