#if Postgres
import Foundation
import Logging
import PostgresNIO
import Tempo
import TempoJobs
import TempoPostgres

/// `tempo-pg-replica history SOCKET DATABASE REPLICA [--runs N] [--rounds R]` (issue #45): the cost per run of
/// keeping history. Each round finishes N claimed dates with a store that keeps 100 runs per job and N with one that
/// keeps none (`historyLimit: 0`), alternating which goes first, and times each finishing statement
/// (`PostgresJobStore.record`: the claim's release, the cursor, and with history the `tempo_runs` insert and trim).
/// Prints each round's medians, the median over rounds and their ratio, then the server's own mean execution time
/// per statement from `pg_stat_statements` when the server preloads it (the second, independent measurement).
func historyMode(_ options: Options) async throws {
    let (runs, rounds) = (options.value("runs", 500), options.value("rounds", 5))
    var logger = Logger(label: options.replica)
    logger.logLevel = .warning
    let client = PostgresClient(
        configuration: .init(
            unixSocketPath: options.socket, username: "tempo", password: nil, database: options.database))
    let running = Task { await client.run() }
    try await PostgresSchema.migrate(on: client, logger: logger)
    let statements = (try? await client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")) != nil
    if statements { _ = try? await client.query("SELECT pg_stat_statements_reset()") }
    let coordinator = try PostgresJobCoordinator(client: client, replica: options.replica)
    let stores = [
        ("history", try PostgresJobStore(client: client, historyLimit: 100, logger: logger)),
        ("none", try PostgresJobStore(client: client, historyLimit: 0, logger: logger)),
    ]
    let clock = ContinuousClock()
    var medians: [String: [Double]] = [:]
    var next = Date().timeIntervalSince1970.rounded(.down)
    for round in 0..<rounds {
        var line = "round \(round + 1):"
        for (name, store) in round % 2 == 0 ? stores : stores.reversed() {
            var times: [Double] = []
            for _ in 0..<runs {
                next += 0.001
                let date = Date(timeIntervalSince1970: next)
                guard let claim = try await coordinator.claim(job: "bench-\(name)", plannedDate: date, logger: logger)
                else { continue }
                let record = JobRunRecord(
                    job: "bench-\(name)", plannedDate: date, trigger: .schedule, replica: options.replica,
                    started: Date(), ended: Date(), attempts: 1, outcome: .succeeded, error: nil,
                    fencingToken: claim.fencingToken)
                let start = clock.now
                try await store.record(record, cursor: JobCursor(lastDate: date), releasing: claim)
                let elapsed = start.duration(to: clock.now)
                times.append(elapsed.inSeconds * 1e6)
            }
            let median = times.sorted()[times.count / 2]
            medians[name, default: []].append(median)
            line += " \(name) median \(String(format: "%.1f", median)) µs (\(times.count) runs);"
        }
        say(line)
    }
    let history = medians["history", default: []].sorted()[rounds / 2]
    let none = medians["none", default: []].sorted()[rounds / 2]
    say(
        "median of round medians: history \(String(format: "%.1f", history)) µs, none \(String(format: "%.1f", none)) µs"
            + " per finishing statement; ratio \(String(format: "%.3f", history / none))")
    say("rows kept in tempo_runs: \(try await count("SELECT count(*) FROM tempo_runs", client))")
    if statements {
        for try await (query, calls, mean) in try await client.query(
            """
            SELECT query, calls, mean_exec_time FROM pg_stat_statements WHERE query LIKE 'WITH finished AS%' \
            ORDER BY query
            """
        ).decode((String, Int64, Double).self) {
            let kind = query.contains("INSERT INTO tempo_runs") ? "history" : "none"
            say("pg_stat_statements \(kind): \(calls) calls, mean execution \(String(format: "%.1f", mean * 1000)) µs")
        }
    } else {
        say("pg_stat_statements: not preloaded by this server (shared_preload_libraries)")
    }
    await endClient(running)
}

private func count(_ query: PostgresQuery, _ client: PostgresClient) async throws -> Int64 {
    var value: Int64 = 0
    for try await count in try await client.query(query).decode(Int64.self) { value = count }
    return value
}
#endif
