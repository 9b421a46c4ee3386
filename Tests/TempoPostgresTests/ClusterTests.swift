#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoPostgres
import Testing

extension PostgresTests {
    /// The cluster: three `tempo-pg-replica run` processes (a JobScheduler each) on one database.
    @Suite struct ClusterTests {
        /// Three processes with wall clocks at -2 s, 0 and +2 s run a job every 200 ms for 20 s each. The window:
        /// replica i says "planning from F(i)" before its scheduler starts and "stopping at S(i)" before its
        /// shutdown, both on its own skewed clock, so every replica planned each date in max F < d <= min S. The
        /// checked window leaves 1 s at each edge (a start's cursor read and catch-up, a date due as shutdown
        /// began): max F + 1 s <= d <= min S - 1 s. Every date of it ran exactly once (`runs`, without a key, has
        /// one row per date; `results`, keyed by date, has each); dates outside it may be missing.
        @Test func threeReplicaProcessesWithSkewedClocksRunEveryDateOfTheWindowExactlyOnce() async throws {
            try await withDatabase(limit: .seconds(300)) { server, client in
                try await createRunTables(on: client)
                let database = try await databaseName(client)
                let replicas = try [-2_000, 0, 2_000].enumerated().map { index, skew in
                    try ReplicaProcess.start(
                        server, database, "replica-\(index)", ["--skew-ms", "\(skew)", "--seconds", "20"])
                }
                defer { for replica in replicas { replica.kill() } }
                for replica in replicas {
                    let (text, status) = try await replica.exit(within: .seconds(240))
                    #expect(status == 0, "\(replica.name): \(text)")
                }
                let starts = replicas.compactMap { $0.value(after: "planning from ") }
                let stops = replicas.compactMap { $0.value(after: "stopping at ") }
                try #require(starts.count == 3 && stops.count == 3, "\(replicas.map(\.text))")
                let (first, last) = (starts.max()! + 1_000, stops.min()! - 1_000)
                let window = Array(stride(from: (first + 199) / 200 * 200, through: last, by: 200))
                #expect(window.count >= 50, "window \(first)...\(last)")
                let runs = try await integers("SELECT count(*) FROM runs", on: client)[0]
                let dates = try await integers("SELECT count(DISTINCT planned_at) FROM runs", on: client)[0]
                let results = Set(
                    try await integers(
                        "SELECT (extract(epoch FROM planned_at) * 1000)::bigint FROM results", on: client))
                #expect(runs == dates, "a date ran twice: \(runs) runs of \(dates) dates")
                #expect(Int64(results.count) == runs)
                let missing = window.filter { !results.contains($0) }
                #expect(missing.isEmpty, "dates of the window (ms since 1970) not run: \(missing)")
                let stats = replicas.map(\.stats)
                #expect(stats.allSatisfy { $0["failed"] == 0 }, "\(stats)")
                #expect(Int64(stats.compactMap { $0["succeeded"] }.reduce(0, +)) == runs, "\(stats)")
                // The replicas behind found dates already claimed by those ahead.
                #expect(stats.compactMap { $0["claimedElsewhere"] }.reduce(0, +) > 0, "\(stats)")
                let perReplica = try await step("counting runs per replica") {
                    var counts: [String] = []
                    for try await (replica, count) in try await client.query(
                        "SELECT replica, count(*) FROM runs GROUP BY replica ORDER BY replica"
                    ).decode((String, Int64).self) {
                        counts.append("\(replica) \(count)")
                    }
                    return counts
                }
                print("three replica processes: window \(window.count) dates, \(runs) runs (\(perReplica)), \(stats)")
            }
        }

        /// Three processes run a job every second whose runs take 700 ms, with leases of 2 s, at least once with
        /// catch-up of each date within 60 s. The replica holding a running claim is killed with SIGKILL: the next
        /// date runs on a survivor, and the killed run's date (its claim never released) runs again on a survivor
        /// once the lease ran out, with a larger token.
        @Test func aReplicaKilledMidRunLeavesItsDateToASurvivorThatRunsItAgain() async throws {
            try await withDatabase(limit: .seconds(300)) { server, client in
                try await createRunTables(on: client)
                let database = try await databaseName(client)
                let options = ["--every-ms", "1000", "--hold-ms", "700", "--lease-ms", "2000", "--seconds", "0"]
                let replicas = try (0..<3).map {
                    try ReplicaProcess.start(server, database, "replica-\($0)", options)
                }
                defer { for replica in replicas { replica.kill() } }
                let killed = try await killTheHolderOfARunningClaim(replicas, client: client)
                let next = killed.date + 1_000
                let nextRun = try await waitForResult(of: next, client: client)
                #expect(nextRun.replica != killed.replica)
                let nextStart = try await integers(
                    """
                    SELECT (extract(epoch FROM min(at)) * 1000)::bigint FROM runs \
                    WHERE (extract(epoch FROM planned_at) * 1000)::bigint = \(next)
                    """, on: client)[0]
                let lostRun = try await waitForResult(of: killed.date, client: client)
                #expect(lostRun.replica != killed.replica)
                #expect(lostRun.token > killed.token)
                // Survivors ran the date once (the killed run's row in `runs` is there unless the kill came between
                // its claim and its first statement).
                let survivorRuns = try await integers(
                    """
                    SELECT count(*) FROM runs WHERE (extract(epoch FROM planned_at) * 1000)::bigint = \(killed.date) \
                    AND replica <> \(killed.replica)
                    """, on: client)
                #expect(survivorRuns == [1])
                print(
                    """
                    killed \(killed.replica) mid-run of date \(killed.date) (its lease until \(killed.leaseUntil)); \
                    next date \(next) started on \(nextRun.replica) \(nextStart - next) ms after it; \
                    the lost date ran again on \(lostRun.replica), its result written \
                    \(lostRun.at - killed.leaseUntil) ms after the lease ran out
                    """)
            }
        }

        /// A killed run: its replica, its date and lease end (ms since 1970), its token.
        struct KilledRun {
            let replica: String
            let date: Int64
            let leaseUntil: Int64
            let token: Int64
        }

        /// Kills (SIGKILL) the replica that holds a running claim; tries again with another while the claim it
        /// saw was finished before the kill (a run that ended in between), as long as two replicas are left.
        private func killTheHolderOfARunningClaim(_ replicas: [ReplicaProcess], client: PostgresClient) async throws
            -> KilledRun
        {
            try await step("killing the replica of a running run", within: .seconds(120)) {
                var alive = replicas
                while alive.count > 1 {
                    let query: PostgresQuery = """
                        SELECT replica, (extract(epoch FROM planned_at) * 1000)::bigint, \
                        (extract(epoch FROM lease_until) * 1000)::bigint, token FROM tempo_claims \
                        WHERE finished_at IS NULL AND lease_until > now() ORDER BY planned_at DESC LIMIT 1
                        """
                    var held: KilledRun?
                    for try await (replica, date, lease, token) in try await client.query(query).decode(
                        (String, Int64, Int64, Int64).self)
                    {
                        held = KilledRun(replica: replica, date: date, leaseUntil: lease, token: token)
                    }
                    guard let held, let victim = alive.first(where: { $0.name == held.replica }) else {
                        try await Task.sleep(for: .milliseconds(20))
                        continue
                    }
                    victim.kill()
                    alive.removeAll { $0.name == victim.name }
                    let unfinished = try await integers(
                        "SELECT count(*) FROM tempo_claims WHERE token = \(held.token) AND finished_at IS NULL",
                        on: client)
                    if unfinished == [1] {
                        let lease = try await integers(
                            """
                            SELECT (extract(epoch FROM lease_until) * 1000)::bigint FROM tempo_claims \
                            WHERE token = \(held.token)
                            """, on: client)
                        return KilledRun(
                            replica: held.replica, date: held.date, leaseUntil: lease.first ?? held.leaseUntil,
                            token: held.token)
                    }
                }
                throw ServerError(message: "every killed replica had finished its run before the kill")
            }
        }

        /// A result row: the replica that wrote it, its token, when (ms since 1970).
        struct ResultRow {
            let replica: String
            let token: Int64
            let at: Int64
        }

        /// Waits (bounded) for the result of `date` (ms since 1970).
        private func waitForResult(of date: Int64, client: PostgresClient) async throws -> ResultRow {
            try await step("waiting for the result of date \(date)", within: .seconds(90)) {
                while true {
                    let query: PostgresQuery = """
                        SELECT replica, token, (extract(epoch FROM at) * 1000)::bigint FROM results \
                        WHERE (extract(epoch FROM planned_at) * 1000)::bigint = \(date)
                        """
                    for try await (replica, token, at) in try await client.query(query).decode(
                        (String, Int64, Int64).self)
                    {
                        return ResultRow(replica: replica, token: token, at: at)
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }
}
#endif
