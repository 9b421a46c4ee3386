#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoPostgres
import Testing

extension PostgresTests {
    /// Replicas in processes of their own (`tempo-pg-replica`), killed or frozen while they hold a claim.
    @Suite struct ProcessTests {
        static let replica: String? = {
            let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            return [beside.appendingPathComponent("tempo-pg-replica").path, ".build-pg/debug/tempo-pg-replica"]
                .first { FileManager.default.isExecutableFile(atPath: $0) }
        }()

        static let date = Date(timeIntervalSince1970: 1_800_000_000)

        @Test func aKilledHolderLosesItsDateToASurvivorOnceItsLeaseRanOut() async throws {
            try await withDatabase { server, client in
                let name = try await databaseName(client)
                try await client.query("CREATE TABLE results (job text, planned_at timestamptz, token bigint)")
                let holder = try await startReplica(server, name, lease: 1_000, hold: 60_000)
                kill(holder.pid, SIGKILL)
                _ = try await holder.exit()
                let token = try await takeOver(client)
                #expect(token > holder.token)
            }
        }

        @Test func aFrozenHoldersLateWriteIsRefusedAndItLearnsItLostTheClaim() async throws {
            try await withDatabase { server, client in
                let name = try await databaseName(client)
                try await client.query("CREATE TABLE results (job text, planned_at timestamptz, token bigint)")
                let holder = try await startReplica(server, name, lease: 1_000, hold: 10_000)
                kill(holder.pid, SIGSTOP)
                let token: Int64
                do {
                    token = try await takeOver(client)
                } catch {
                    // Never leave a frozen process behind.
                    kill(holder.pid, SIGKILL)
                    kill(holder.pid, SIGCONT)
                    _ = try? await holder.exit()
                    throw error
                }
                kill(holder.pid, SIGCONT)
                let output = try await holder.exit()
                #expect(output.contains("result refused"), "\(output)")
                #expect(output.contains("held false"), "\(output)")
                #expect(try await integers("SELECT token FROM results", on: client) == [token])
            }
        }

        /// Claims the date as a survivor once the holder's lease ran out (polling, bounded) and writes its result.
        private func takeOver(_ client: PostgresClient) async throws -> Int64 {
            let survivor = try PostgresJobCoordinator(client: client, replica: "survivor")
            return try await step("a survivor taking the date over", within: .seconds(60)) {
                while true {
                    if let claim = try await survivor.claim(
                        job: "report", plannedDate: Self.date, logger: Logger(label: "s"))
                    {
                        try await client.query(
                            "INSERT INTO results VALUES ('report', \(Self.date), \(claim.fencingToken))")
                        await claim.release(succeeded: true)
                        return claim.fencingToken
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }

        private func databaseName(_ client: PostgresClient) async throws -> String {
            try await step("reading the database's name") {
                var name = ""
                for try await value in try await client.query("SELECT current_database()").decode(String.self) {
                    name = value
                }
                return name
            }
        }

        /// A running replica process and its claim's token.
        struct Replica {
            let pid: pid_t
            let token: Int64
            let output: String

            /// Waits (bounded) for the process to end; returns what it printed.
            func exit() async throws -> String {
                try await step("waiting for the replica process to end", within: .seconds(60)) {
                    var status: Int32 = 0
                    while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(20)) }
                    return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                }
            }
        }

        /// Starts `tempo-pg-replica` and waits (bounded) until it holds the date.
        private func startReplica(_ server: PostgresServer, _ database: String, lease: Int, hold: Int) async throws
            -> Replica
        {
            let path = try #require(Self.replica, "tempo-pg-replica not found: build with --build-tests")
            let output = "\(server.folder)/replica-\(UInt64.random(in: 0...UInt64.max)).out"
            let socket = "\(server.folder)/.s.PGSQL.\(server.port)"
            let pid = try ToolProcess.spawn(path, [socket, database, "holder", "\(lease)", "\(hold)"], output: output)
            let token = try await step("waiting for the replica process to claim the date", within: .seconds(60)) {
                while true {
                    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                    if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("claimed ") }),
                        let token = Int64(line.dropFirst("claimed ".count))
                    {
                        return token
                    }
                    guard !text.contains("refused") else { throw ServerError(message: "replica: \(text)") }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            return Replica(pid: pid, token: token, output: output)
        }
    }
}
#endif
