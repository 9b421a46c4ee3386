import Foundation
import Testing

/// `tempo jobs` on a JSON store end to end (issue #45): the binary reads the files a scheduler writes beside its
/// store and writes the control file its schedulers read.
@Suite struct JobsCommandTests {
    /// A store folder with the jobs file a scheduler of `JSONFileJobStore` writes: two jobs, "report" with a
    /// succeeded and a failed run.
    private func makeStore() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tempo-jobs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("jobs.json").path
        let now = Date().timeIntervalSince1970
        let jobs = """
            {"version": 1, "contents": {"controls": {}, "served": {}, "descriptions": {
              "report": {"name": "report", "schedule": "every 60.0 seconds", "nextDates": [\(now + 30), \(now + 90)],
                         "replica": "web-1", "publishedAt": \(now - 10)},
              "sync": {"name": "sync", "schedule": "cron \\"0 3 * * *\\" in GMT", "nextDates": [\(now + 3600)],
                       "replica": "web-2", "publishedAt": \(now - 5)}},
             "history": {"report": [
               {"job": "report", "plannedDate": \(now - 90), "trigger": "schedule", "replica": "web-1",
                "started": \(now - 90), "ended": \(now - 89.5), "attempts": 1, "outcome": "succeeded", "fencingToken": 0},
               {"job": "report", "plannedDate": \(now - 30), "trigger": "schedule", "replica": "web-2",
                "started": \(now - 30), "ended": \(now - 28), "attempts": 3, "outcome": "failed",
                "error": "disk full", "fencingToken": 0}]}}}
            """
        try jobs.write(toFile: path + ".jobs.json", atomically: true, encoding: .utf8)
        return path
    }

    /// Removes the folder of a store made by `makeStore()`.
    private func removeStore(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    @Test func listShowsEachJobWithItsStateNextDateAndLastRunAsATableAndAsJSON() async throws {
        let store = try makeStore()
        defer { removeStore(store) }
        let table = try await TempoBinary.run(["jobs", "list", "--store", store])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("JOB"), "\(table.stdout)")
        #expect(lines[1].hasPrefix("report") && lines[1].contains("active") && lines[1].contains("failed"))
        #expect(lines[2].hasPrefix("sync") && lines[2].contains("cron \"0 3 * * *\" in GMT"))
        let json = try await TempoBinary.run(["jobs", "list", "--store", store, "--json"])
        let jobs = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(jobs.map { $0["name"] as? String } == ["report", "sync"])
        #expect(jobs[0]["state"] as? String == "active" && jobs[0]["pendingRuns"] as? Int == 0)
        #expect((jobs[0]["lastRun"] as? [String: Any])?["error"] as? String == "disk full")
    }

    @Test func showListsTheLastRunsNewestFirstWithTheirErrors() async throws {
        let store = try makeStore()
        defer { removeStore(store) }
        let output = try await TempoBinary.run(["jobs", "show", "report", "--store", store])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("schedule:     every 60.0 seconds"))
        #expect(output.stdout.contains("last 2 runs, newest first (1 failed):"))
        let runs = output.stdout.split(separator: "\n").filter { $0.contains("web-") && $0.contains("schedule ") }
        #expect(runs.count == 2 && runs[0].contains("failed") && runs[0].hasSuffix("disk full"), "\(output.stdout)")
        #expect(runs[0].contains("2.00s") && runs[1].contains("500ms"))
    }

    @Test func pauseResumeAndRunNowWriteTheControlFileTheSchedulersRead() async throws {
        let store = try makeStore()
        defer { removeStore(store) }
        let paused = try await TempoBinary.run(["jobs", "pause", "report", "--store", store])
        #expect(paused.status == 0 && paused.stdout == "paused report\n", "\(paused.stderr)")
        let list = try await TempoBinary.run(["jobs", "list", "--store", store, "--json"])
        #expect(list.stdout.contains("\"state\" : \"paused\""))
        let control = try String(contentsOfFile: store + ".control.json", encoding: .utf8)
        #expect(control.contains("\"paused\""))
        let runNow = try await TempoBinary.run(["jobs", "run-now", "report", "--store", store, "--json"])
        #expect(runNow.status == 0 && runNow.stdout.contains("\"requestedAt\""), "\(runNow.stderr)")
        let shown = try await TempoBinary.run(["jobs", "show", "report", "--store", store])
        #expect(shown.stdout.contains("run-now:      1 pending") && shown.stdout.contains("state:        paused since"))
        let resumed = try await TempoBinary.run(["jobs", "resume", "report", "--store", store])
        #expect(resumed.status == 0 && resumed.stdout == "resumed report\n")
        let after = try await TempoBinary.run(["jobs", "show", "report", "--store", store, "--json"])
        #expect(after.stdout.contains("\"state\" : \"active\""))
    }

    @Test(arguments: [
        (["jobs", "pause", "nope"], 65, "\"nope\""), (["jobs", "show", "nope"], 65, "\"nope\""),
        (["jobs", "list"], 64, "no store"),
    ])
    func badInputExitsWithItsSysexitsStatusNamingTheValue(arguments: [String], status: Int32, named: String)
        async throws
    {
        let store = try makeStore()
        defer { removeStore(store) }
        let output = try await TempoBinary.run(
            arguments + (arguments.count > 2 ? ["--store", store] : []), environment: ["TEMPO_POSTGRES_URL": ""])
        #expect(output.status == status, "stderr: \(output.stderr)")
        #expect(output.stderr.contains(named), "stderr: \(output.stderr)")
    }

    @Test func aMissingStoreExitsWith66AndBothStoresWith64() async throws {
        let missing = try await TempoBinary.run(["jobs", "list", "--store", "/nonexistent/jobs.json"])
        #expect(missing.status == 66 && missing.stderr.contains("/nonexistent/jobs.json"), "\(missing.stderr)")
        let both = try await TempoBinary.run(["jobs", "list", "--store", "x", "--postgres", "postgres://u@h/d"])
        #expect(both.status == 64, "\(both.stderr)")
    }

    #if !Postgres
    @Test func aPostgresURLWithoutThePostgresTraitExitsWith69SayingHowToBuildIt() async throws {
        let output = try await TempoBinary.run(["jobs", "list", "--postgres", "postgres://tempo@localhost/jobs"])
        #expect(output.status == 69, "\(output.stderr)")
        #expect(output.stderr.contains("--traits default,Postgres"))
    }
    #endif
}
