#if Postgres
import Foundation
import Logging
import PostgresNIO

/// Prints a line at once (the tests read the output while the process runs).
@Sendable func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Cancels the client's `run()` task and waits for it to end, so that the process exits with the client's connections
/// closed: exiting while NIO still closed a channel left that channel's objects to LeakSanitizer.
func endClient(_ running: Task<Void, Never>) async {
    running.cancel()
    await running.value
}

/// The arguments of the `run` and `bench` modes: three positional ones, then `--name value` pairs.
struct Options {
    let socket: String
    let database: String
    let replica: String
    private var values: [String: Int] = [:]

    init(_ arguments: ArraySlice<String>) {
        let list = Array(arguments)
        guard list.count >= 3, list.count % 2 == 1 else { Self.usage("three positional arguments, then pairs") }
        socket = list[0]
        database = list[1]
        replica = list[2]
        for index in stride(from: 3, to: list.count, by: 2) {
            guard list[index].hasPrefix("--"), let value = Int(list[index + 1]) else {
                Self.usage("\(list[index]) \(list[index + 1]) is not --name integer")
            }
            values[String(list[index].dropFirst(2))] = value
        }
    }

    /// The integer option `name`, or `fallback`.
    func value(_ name: String, _ fallback: Int) -> Int { values[name] ?? fallback }

    /// A client on the socket, as the user `tempo`.
    func makeClient() -> PostgresClient {
        PostgresClient(
            configuration: .init(unixSocketPath: socket, username: "tempo", password: nil, database: database))
    }

    private static func usage(_ problem: String) -> Never {
        say("usage: tempo-pg-replica run|bench SOCKET DATABASE REPLICA [--name integer]...: \(problem)")
        exit(64)
    }
}

/// A logger that writes warnings and errors to standard error, with the replica's name.
func makeLogger(_ replica: String) -> Logger {
    var logger = Logger(label: replica) { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = .warning
    return logger
}
#endif
