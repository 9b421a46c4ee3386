#if Postgres
import Foundation
import PostgresNIO
import Testing

/// A throwaway PostgreSQL server: a cluster in a new private temporary folder (trust auth, a Unix socket in that
/// folder only, no TCP), on a port no other process uses, removed with its folder by ``remove()``. As root,
/// `initdb` and `pg_ctl` run as the `postgres` user (they refuse to run as root).
///
/// Every tool run has a time limit (`pg_ctl` waits at most 60 s, and is killed past 120 s), so a server that does
/// not come up fails its test with the tool's output instead of blocking the run.
final class PostgresServer: Sendable {
    /// Why the database tests cannot run here, or `nil` when they can.
    static let missing: String? = {
        guard findTool("initdb") != nil, findTool("pg_ctl") != nil else {
            return "PostgreSQL's initdb and pg_ctl are not on the PATH"
        }
        if getuid() == 0, !FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") {
            return "running as root without /usr/sbin/runuser to run initdb as the postgres user"
        }
        return nil
    }()

    /// Whether `TEMPO_REQUIRE_POSTGRES=1` makes a missing server a failure instead of a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["TEMPO_REQUIRE_POSTGRES"] == "1" }

    /// Whether the database tests run: the binaries are there, or ``required`` makes their absence a failure.
    static var enabled: Bool { missing == nil || required }

    /// The message of skipped database tests.
    static let skipMessage: Comment = """
        PostgreSQL tests skipped: install PostgreSQL 15+ (initdb and pg_ctl on the PATH) to run them; \
        TEMPO_REQUIRE_POSTGRES=1 (as in CI) fails instead
        """

    /// The server's folder: its data directory `data`, its socket and its log `log`.
    let folder: String
    /// The port, which names the socket file `.s.PGSQL.<port>` in ``folder``.
    let port: Int

    private init(folder: String, port: Int) {
        self.folder = folder
        self.port = port
    }

    /// Creates a cluster (`initdb`) in a new temporary folder and starts it; removes the folder when that fails.
    static func start() async throws -> PostgresServer {
        if let missing { throw ServerError(message: "TEMPO_REQUIRE_POSTGRES=1 but \(missing)") }
        var template = Array("/tmp/tempo-pg-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw ServerError(message: "mkdtemp failed: errno \(errno)")
        }
        let server = PostgresServer(folder: String(cString: created), port: try freePort())
        do {
            if getuid() == 0 {
                try await ToolProcess.run("/bin/chown", ["postgres", server.folder], limit: .seconds(30))
            }
            try await tool("initdb", ["-D", "\(server.folder)/data", "-A", "trust", "-U", "tempo", "--no-sync"])
            try await server.startAgain()
        } catch {
            await server.remove()
            throw error
        }
        return server
    }

    /// Starts the stopped server and waits until it accepts connections. It loads `pg_stat_statements` (tests count
    /// statements per database with it, after `CREATE EXTENSION pg_stat_statements`).
    func startAgain() async throws {
        let options = """
            -k \(folder) -p \(port) -c listen_addresses='' -c fsync=off -c max_connections=200 \
            -c shared_preload_libraries=pg_stat_statements
            """
        try await Self.tool(
            "pg_ctl", ["-D", "\(folder)/data", "-o", options, "-l", "\(folder)/log", "-w", "-t", "60", "start"])
    }

    /// Stops the server (fast shutdown: open connections are closed).
    func stop() async throws {
        try await Self.tool("pg_ctl", ["-D", "\(folder)/data", "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Stops the server at once, as a crash would (`pg_ctl stop -m immediate`: no checkpoint, connections cut).
    func stopImmediately() async throws {
        try await Self.tool("pg_ctl", ["-D", "\(folder)/data", "-m", "immediate", "-w", "-t", "60", "stop"])
    }

    /// Stops the server if it runs (killing it if `pg_ctl` cannot) and deletes its folder.
    func remove() async {
        if FileManager.default.fileExists(atPath: "\(folder)/data/postmaster.pid") {
            do {
                try await stop()
            } catch {
                // SIGQUIT: the postmaster's immediate shutdown, which ends its children too.
                let pidFile = (try? String(contentsOfFile: "\(folder)/data/postmaster.pid", encoding: .utf8)) ?? ""
                if let line = pidFile.split(separator: "\n").first, let pid = Int32(line) { kill(pid, SIGQUIT) }
            }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A client configuration for `database` as the user `tempo`, on the server's socket.
    func configuration(database: String) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            unixSocketPath: "\(folder)/.s.PGSQL.\(port)", username: "tempo", password: nil, database: database)
        configuration.options.connectTimeout = .seconds(30)
        return configuration
    }

    /// The last lines of the server's log, for a failure's message.
    var logTail: String {
        let text = (try? String(contentsOfFile: "\(folder)/log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(20).joined(separator: "\n")
    }

    /// A port no process listens on now (the kernel's choice for an ephemeral TCP port). The server listens on
    /// no TCP port, but the number names its socket and its shared memory key.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError(message: "socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { throw ServerError(message: "bind to a free port failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func findTool(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs a PostgreSQL tool, as the `postgres` user when running as root.
    private static func tool(_ name: String, _ arguments: [String]) async throws {
        guard let path = findTool(name) else { throw ServerError(message: "\(name) is not on the PATH") }
        if getuid() == 0 {
            try await ToolProcess.run(
                "/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments, limit: .seconds(120))
        } else {
            try await ToolProcess.run(path, arguments, limit: .seconds(120))
        }
    }
}
#endif
