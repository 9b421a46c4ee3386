#if canImport(Glibc)
import CTempoShims
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Detached pthreads that run a closure until it returns: the scheduler's driver threads and the delivery pool's
/// workers.
package enum DriverThread {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// The longest thread name the kernel keeps, in bytes (Linux: 16 with the terminating zero).
    static let maximumNameLength = 15

    /// Names the calling thread `name`, cut to ``maximumNameLength`` bytes on a character boundary: what `top -H`,
    /// `ps -L`, debuggers and profilers show for it, and what a test reads back from `/proc/thread-self/comm`.
    static func nameCurrentThread(_ name: String) {
        var bytes: [CChar] = []
        for character in name {
            let utf8 = Array(String(character).utf8CString.dropLast())
            guard bytes.count + utf8.count <= maximumNameLength else { break }
            bytes += utf8
        }
        bytes.append(0)
        #if canImport(Darwin)
        _ = pthread_setname_np(bytes)
        #else
        _ = ctempo_set_thread_name(bytes)
        #endif
    }

    /// The number of processors currently online (at least 1).
    package static var activeProcessorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Starts a detached thread named `name` (cut to ``maximumNameLength`` bytes) that runs `run`.
    ///
    /// - Parameters:
    ///   - name: The thread's name, as tools show it (`tempo.monotonic`, `tempo.delivery`).
    ///   - run: What the thread runs; the thread ends when it returns.
    package static func start(name: String, _ run: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run)).toOpaque()
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
                DriverThread.nameCurrentThread(body.name)
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
