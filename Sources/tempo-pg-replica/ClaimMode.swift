#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoPostgres

/// The first mode: claims one date, holds it, writes its result with a token check (see main.swift).
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
    var written = 0
    for try await _ in try await client.query(
        """
        INSERT INTO results SELECT 'report', \(date), \(claim.fencingToken) WHERE EXISTS (SELECT 1 FROM tempo_claims \
        WHERE job = 'report' AND planned_at = \(date) AND token = \(claim.fencingToken) AND lease_until > now()) \
        RETURNING 1::bigint
        """
    ).decode(Int64.self) {
        written += 1
    }
    say(written == 1 ? "result written" : "result refused")
    say("held \(await claim.isHeld())")
    await claim.release(succeeded: true)
    say("released")
    await endClient(running)
}
#endif
