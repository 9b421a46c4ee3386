#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres
import Testing

/// The database judges claims: one per date, leases expire, stale holders are fenced off.
@Suite(.enabled(if: PostgresServer.enabled, PostgresServer.skipMessage))
struct ClaimTests {
    let logger = Logger(label: "test")
    let date = Date(timeIntervalSince1970: 1_800_000_000.2)

    @Test func ofManyConcurrentClaimsOnOneDateExactlyOneIsGranted() async throws {
        try await withMigratedServer { _, client in
            let replicas = try (0..<8).map { try PostgresJobCoordinator(client: client, replica: "r\($0)") }
            let granted = await withTaskGroup(of: Int64?.self) { group in
                for replica in replicas {
                    group.addTask {
                        let claim = await replica.claim(job: "report", plannedDate: date, logger: logger)
                        return claim?.fencingToken
                    }
                }
                return await group.reduce(into: []) { if let token = $1 { $0.append(token) } }
            }
            #expect(granted.count == 1)
            // Another date is another claim.
            #expect(await replicas[0].claim(job: "report", plannedDate: date + 0.2, logger: logger) != nil)
        }
    }

    @Test func aFinishedDateIsNeverClaimedAgain() async throws {
        try await withMigratedServer { _, client in
            let coordinator = try PostgresJobCoordinator(client: client, replica: "a")
            let claim = try #require(await coordinator.claim(job: "report", plannedDate: date, logger: logger))
            await claim.release(succeeded: true)
            try await client.query("UPDATE tempo_claims SET lease_until = now() - interval '1 hour'")
            #expect(await coordinator.claim(job: "report", plannedDate: date, logger: logger) == nil)
        }
    }

    @Test func aClaimWhoseLeaseExpiredIsRefusedAndItsDateGoesToANewerToken() async throws {
        try await withMigratedServer { _, client in
            let first = try PostgresJobCoordinator(client: client, replica: "frozen")
            let second = try PostgresJobCoordinator(client: client, replica: "survivor")
            let stale = try #require(await first.claim(job: "report", plannedDate: date, logger: logger))
            #expect(await stale.isHeld())
            // While the lease holds, the date is taken.
            #expect(await second.claim(job: "report", plannedDate: date, logger: logger) == nil)
            // The holder froze past its lease (its renewals stopped): the server's clock expires it.
            try await client.query("UPDATE tempo_claims SET lease_until = now() - interval '1 second'")
            #expect(await !stale.isHeld())
            let fresh = try #require(await second.claim(job: "report", plannedDate: date, logger: logger))
            #expect(fresh.fencingToken > stale.fencingToken)
            #expect(await fresh.isHeld())
            #expect(await !stale.isHeld())
            // A result written with the token check is refused for the stale run, taken for the fresh one.
            try await client.query(
                "CREATE TABLE results (job text, planned_at timestamptz, token bigint, PRIMARY KEY (job, planned_at))")
            for claim in [stale, fresh] {
                try await client.query(
                    """
                    INSERT INTO results SELECT 'report', \(date), \(claim.fencingToken) WHERE EXISTS (SELECT 1 \
                    FROM tempo_claims WHERE job = 'report' AND planned_at = \(date) AND token = \
                    \(claim.fencingToken) AND lease_until > now())
                    """)
            }
            #expect(try await integers("SELECT token FROM results", on: client) == [fresh.fencingToken])
            // The stale release does not finish the fresh claim; the fresh one does.
            await stale.release(succeeded: true)
            #expect(
                try await integers("SELECT count(*) FROM tempo_claims WHERE finished_at IS NULL", on: client) == [1])
            await fresh.release(succeeded: true)
            #expect(
                try await integers("SELECT count(*) FROM tempo_claims WHERE finished_at IS NULL", on: client) == [0])
        }
    }

    @Test func aRunningClaimIsRenewedPastItsLease() async throws {
        try await withMigratedServer { _, client in
            let coordinator = try PostgresJobCoordinator(
                client: client, replica: "a", configuration: .init(lease: .milliseconds(600)))
            let claim = try #require(await coordinator.claim(job: "report", plannedDate: date, logger: logger))
            // Wait (generously) until the lease was extended past its first end, on the server's clock.
            let first = try await integers(
                "SELECT (extract(epoch FROM lease_until) * 1000000)::bigint FROM tempo_claims", on: client)
            var renewed = false
            for _ in 0..<600 where !renewed {
                try await Task.sleep(for: .milliseconds(50))
                let now = try await integers(
                    "SELECT (extract(epoch FROM lease_until) * 1000000)::bigint FROM tempo_claims", on: client)
                renewed = now[0] > first[0]
            }
            #expect(renewed)
            #expect(await claim.isHeld())
            await claim.release(succeeded: true)
        }
    }

    @Test func aLeaseUnderAMillisecondThrowsNamingIt() async throws {
        try await withMigratedServer { _, client in
            let error = #expect(throws: PostgresJobsError.self) {
                try PostgresJobCoordinator(client: client, replica: "a", configuration: .init(lease: .zero))
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains("0.0 seconds") == true)
        }
    }
}
#endif
