#if os(Linux)
import Glibc

/// A detached pthread running a closure forever.
package enum DriverThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    package static func start(name: String, _ run: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread,
            nil,
            { raw in
                let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
                body.run()
                return nil
            },
            context
        )
        precondition(status == 0, "pthread_create failed with \(status)")
        pthread_detach(thread)
    }
}
#endif
