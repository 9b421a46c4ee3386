#if Postgres
import Foundation

/// Runs a command line tool with its output in a file and a time limit, and waits for it with `waitpid`.
///
/// Not Foundation's `Process`: on Linux it learns that a child exited from a socket the child inherits, and the
/// server that `pg_ctl start` leaves behind inherits it too, so `waitUntilExit()` never returned for
/// `pg_ctl start` (the hang of the first version of these tests: `runuser` a zombie, the test blocked). Here the
/// child gets only standard input (`/dev/null`) and output (the log file): every other descriptor is closed.
enum ToolProcess {
    /// Runs `path` with `arguments`; throws ``ServerError`` with the tool's output when it exits with another
    /// status than 0, and kills it (SIGKILL) and throws when it runs longer than `limit`.
    static func run(_ path: String, _ arguments: [String], limit: Duration) async throws {
        let log = "\(NSTemporaryDirectory())tempo-pg-tool-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).log"
        defer { unlink(log) }
        let command = ([path] + arguments).joined(separator: " ")
        let pid = try spawn(path, arguments, output: log)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: limit)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            guard reaped == 0 || errno == EINTR else {
                throw ServerError(message: "\(command): waitpid failed, errno \(errno)")
            }
            let cancelled = Task.isCancelled
            if cancelled || clock.now >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                let why = cancelled ? "was cancelled" : "did not end within \(limit)"
                throw ServerError(message: "\(command) \(why) and was killed: \(output(log))")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        // WIFEXITED and WEXITSTATUS are macros Swift does not import.
        let signal = status & 0x7f
        let code = (status >> 8) & 0xff
        guard signal == 0, code == 0 else {
            let how = signal == 0 ? "exited \(code)" : "was killed by signal \(signal)"
            throw ServerError(message: "\(command) \(how): \(output(log))")
        }
    }

    /// Starts the child with standard input from `/dev/null`, its output and errors into `output`, and no other
    /// descriptor of this process.
    static func spawn(_ path: String, _ arguments: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        try closeFrom(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else { throw ServerError(message: "cannot start \(path): error \(result)") }
        return pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+): the Glibc module does not import it (it is
    /// declared for `_GNU_SOURCE` only).
    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ descriptor: Int32) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw ServerError(message: "posix_spawn_file_actions_addclosefrom_np is missing: glibc 2.34+ is needed")
        }
        let result = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, descriptor)
        guard result == 0 else { throw ServerError(message: "posix_spawn_file_actions_addclosefrom_np: \(result)") }
    }

    private static func output(_ log: String) -> String {
        (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    }
}

/// A failure of the test server or its tools, with what they printed.
struct ServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
#endif
