#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres

/// The first mode: claims one date, holds it, writes its result fenced by its claim (see main.swift).
func claimMode(_ arguments: [String]) async throws {
    guard arguments.count == 6, let leaseMs = Int64(arguments[4]), let holdMs = Int64(arguments[5]) else {
        say("usage: tempo-pg-replica SOCKET DATABASE REPLICA LEASE_MS HOLD_MS")
        exit(64)
    }
    let replica = arguments[3]
    let logger = Logger(label: replica)
    let client = PostgresClient(
        configuration: .init(unixSocketPath: arguments[1], username: "tempo", password: nil, database: arguments[2]))
    let running = Task { await client.run() }
    let coordinator = try PostgresJobCoordinator(
        client: client, replica: replica, configuration: .init(lease: .milliseconds(leaseMs)))
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    guard let claim = try await coordinator.claim(job: "report", plannedDate: date, logger: logger) else {
        say("refused")
        await endClient(running)
        exit(1)
    }
    say("claimed \(claim.fencingToken)")
    try await Task.sleep(for: .milliseconds(holdMs))
    guard let fenced = claim as? PostgresJobClaim else {
        say("not a PostgresJobClaim")
        exit(70)
    }
    do {
        try await fenced.withFencedTransaction { connection in
            try await connection.query(
                "INSERT INTO results VALUES ('report', \(date), \(claim.fencingToken))", logger: logger)
        }
        say("result written")
    } catch let error as JobError where error.code == .claimLost {
        say("result refused")
    }
    say("held \(await claim.isHeld())")
    await claim.release(succeeded: true)
    say("released")
    await endClient(running)
}
#endif
