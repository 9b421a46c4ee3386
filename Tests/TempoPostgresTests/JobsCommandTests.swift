#if Postgres
import Foundation
import PostgresNIO
import TempoJobs
import Testing

extension PostgresTests {
    /// `tempo jobs` against a throwaway PostgreSQL server (issue #45), by running the built binary.
    @Suite struct JobsCommandTests {
        static let tempo: String? = {
            let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            return [beside.appendingPathComponent("tempo").path].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        }()

        /// Runs `tempo arguments...` (bounded); returns its standard output and error together, and its status.
        static func tempo(_ arguments: [String], in folder: String) async throws -> (text: String, status: Int32) {
            let path = try #require(tempo, "tempo not found beside the tests: build with --build-tests")
            let output = "\(folder)/tempo-\(UInt64.random(in: 0...UInt64.max)).out"
            let pid = try ToolProcess.spawn(path, arguments, output: output)
            let status = try await step("tempo \(arguments.joined(separator: " "))", within: .seconds(60)) {
                var status: Int32 = 0
                while waitpid(pid, &status, WNOHANG) == 0 { try await Task.sleep(for: .milliseconds(20)) }
                return (status >> 8) & 0xff
            }
            return ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "", status)
        }

        @Test func listShowPauseAndRunNowOnTheReplicasDatabase() async throws {
            try await withDatabase(limit: .seconds(180)) { server, client in
                try await client.query(
                    "CREATE TABLE ran (job text NOT NULL, planned_at timestamptz NOT NULL, replica text NOT NULL)")
                let database = try await databaseName(client)
                let url = "postgres://tempo@localhost:\(server.port)/\(database)?host=\(server.folder)"
                let (scheduler, _) = try ControlTests.replica("web-1", client: client)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await scheduler.run() }
                    defer { scheduler.triggerGracefulShutdown() }
                    try await ControlTests.wait("tick running") {
                        try await ControlTests.count("SELECT count(*) FROM tempo_runs WHERE job = 'tick'", on: client)
                            >= 3
                    }
                    let list = try await Self.tempo(["jobs", "list", "--postgres", url], in: server.folder)
                    #expect(list.status == 0, "\(list.text)")
                    let lines = list.text.split(separator: "\n")
                    #expect(lines.count == 3 && lines[0].hasPrefix("JOB"), "\(list.text)")
                    #expect(lines.contains { $0.hasPrefix("tick") && $0.contains("active") && $0.contains("web-1") })
                    let pause = try await Self.tempo(["jobs", "pause", "tick", "--postgres", url], in: server.folder)
                    #expect(pause.status == 0 && pause.text == "paused tick\n", "\(pause.text)")
                    let runNow = try await Self.tempo(
                        ["jobs", "run-now", "tick", "--postgres", url], in: server.folder)
                    #expect(
                        runNow.status == 0 && runNow.text.hasPrefix("asked for a run of tick at "), "\(runNow.text)")
                    try await ControlTests.wait("the run-now run") {
                        try await ControlTests.count(
                            "SELECT count(*) FROM tempo_runs WHERE trigger = 'runNow'", on: client) == 1
                    }
                    let show = try await Self.tempo(
                        ["jobs", "show", "tick", "--postgres", url, "--json"], in: server.folder)
                    #expect(show.status == 0, "\(show.text)")
                    let detail = try JSONSerialization.jsonObject(with: Data(show.text.utf8)) as? [String: Any]
                    let overview = try #require(detail?["overview"] as? [String: Any], "\(show.text)")
                    #expect(overview["state"] as? String == "paused")
                    let history = try #require(detail?["history"] as? [[String: Any]])
                    #expect(
                        history.first?["trigger"] as? String == "runNow"
                            && history.first?["replica"] as? String == "web-1")
                    let table = try await Self.tempo(["jobs", "show", "tick", "--postgres", url], in: server.folder)
                    print(
                        "$ tempo jobs list --postgres URL\n\(list.text)$ tempo jobs show tick --postgres URL\n\(table.text)"
                    )
                    let unknown = try await Self.tempo(
                        ["jobs", "resume", "nope", "--postgres", url], in: server.folder)
                    #expect(unknown.status == 65 && unknown.text.contains("\"nope\""), "\(unknown.text)")
                }
            }
        }

        @Test func aDatabaseThatIsDownExitsWith75AndANewerSchemaWith65() async throws {
            try await withDatabase { server, client in
                let database = try await databaseName(client)
                let down = "postgres://tempo@localhost:1/\(database)?host=\(server.folder)"
                let unreachable = try await Self.tempo(["jobs", "list", "--postgres", down], in: server.folder)
                #expect(unreachable.status == 75, "\(unreachable.text)")
                #expect(unreachable.text.contains("cannot reach the database"), "\(unreachable.text)")
                try await client.query("INSERT INTO tempo_schema (version, applied_at) VALUES (9, now())")
                let url = "postgres://tempo@localhost:\(server.port)/\(database)?host=\(server.folder)"
                let newer = try await Self.tempo(["jobs", "list", "--postgres", url], in: server.folder)
                #expect(newer.status == 65 && newer.text.contains("version 9"), "\(newer.text)")
            }
        }
    }
}
#endif
