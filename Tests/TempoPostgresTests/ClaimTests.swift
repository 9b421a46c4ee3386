#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres
import Testing

extension PostgresTests {
    /// The database judges claims: one per date, leases expire, stale holders are fenced off.
    @Suite struct ClaimTests {
        static let logger = Logger(label: "test")
        static let date = Date(timeIntervalSince1970: 1_800_000_000.2)

        @Test func ofManyConcurrentClaimsOnOneDateExactlyOneIsGranted() async throws {
            try await withDatabase { _, client in
                let (logger, date) = (Self.logger, Self.date)
                let replicas = try (0..<8).map { try PostgresJobCoordinator(client: client, replica: "r\($0)") }
                let granted = try await step("8 replicas claiming one date") {
                    try await withThrowingTaskGroup(of: Int64?.self) { group in
                        for replica in replicas {
                            group.addTask {
                                try await replica.claim(job: "report", plannedDate: date, logger: logger)?.fencingToken
                            }
                        }
                        return try await group.reduce(into: [Int64]()) { if let token = $1 { $0.append(token) } }
                    }
                }
                #expect(granted.count == 1)
                // Another date is another claim.
                let other = try await step("claiming another date") {
                    try await replicas[0].claim(job: "report", plannedDate: date + 0.2, logger: logger)?.fencingToken
                }
                #expect(other != nil)
            }
        }

        @Test func aFinishedDateIsNeverClaimedAgain() async throws {
            try await withDatabase { _, client in
                let (logger, date) = (Self.logger, Self.date)
                let coordinator = try PostgresJobCoordinator(client: client, replica: "a")
                let claim = try #require(
                    try await step("claiming") {
                        try await coordinator.claim(job: "report", plannedDate: date, logger: logger)
                    })
                try await step("releasing, then expiring every lease") {
                    await claim.release(succeeded: true)
                    try await client.query("UPDATE tempo_claims SET lease_until = now() - interval '1 hour'")
                }
                let again = try await step("claiming again") {
                    try await coordinator.claim(job: "report", plannedDate: date, logger: logger)?.fencingToken
                }
                #expect(again == nil)
            }
        }

        @Test func aClaimWhoseLeaseExpiredIsRefusedAndItsDateGoesToANewerToken() async throws {
            try await withDatabase { _, client in
                let (logger, date) = (Self.logger, Self.date)
                let first = try PostgresJobCoordinator(client: client, replica: "frozen")
                let second = try PostgresJobCoordinator(client: client, replica: "survivor")
                let stale = try #require(
                    try await step("claiming") {
                        try await first.claim(job: "report", plannedDate: date, logger: logger)
                    })
                #expect(try await step("checking the claim") { await stale.isHeld() })
                // While the lease holds, the date is taken.
                let taken = try await step("claiming a held date") {
                    try await second.claim(job: "report", plannedDate: date, logger: logger)?.fencingToken
                }
                #expect(taken == nil)
                // The holder froze past its lease (its renewals stopped): the server's clock expires it.
                try await step("expiring the lease") {
                    try await client.query("UPDATE tempo_claims SET lease_until = now() - interval '1 second'")
                }
                #expect(try await step("checking the expired claim") { await !stale.isHeld() })
                let fresh = try #require(
                    try await step("taking the expired date over") {
                        try await second.claim(job: "report", plannedDate: date, logger: logger)
                    })
                #expect(fresh.fencingToken > stale.fencingToken)
                #expect(try await step("checking the fresh claim") { await fresh.isHeld() })
                #expect(try await step("checking the stale claim") { await !stale.isHeld() })
                // A result written with the token check is refused for the stale run, taken for the fresh one.
                try await step("writing results with the token check") {
                    try await client.query(
                        "CREATE TABLE results (job text, planned_at timestamptz, token bigint, PRIMARY KEY (job, planned_at))"
                    )
                    for claim in [stale, fresh] {
                        try await client.query(
                            """
                            INSERT INTO results SELECT 'report', \(date), \(claim.fencingToken) WHERE EXISTS (SELECT 1 \
                            FROM tempo_claims WHERE job = 'report' AND planned_at = \(date) AND token = \
                            \(claim.fencingToken) AND lease_until > now())
                            """)
                    }
                }
                #expect(try await integers("SELECT token FROM results", on: client) == [fresh.fencingToken])
                // The stale release does not finish the fresh claim; the fresh one does.
                try await step("releasing the stale claim") { await stale.release(succeeded: true) }
                #expect(
                    try await integers("SELECT count(*) FROM tempo_claims WHERE finished_at IS NULL", on: client) == [1]
                )
                try await step("releasing the fresh claim") { await fresh.release(succeeded: true) }
                #expect(
                    try await integers("SELECT count(*) FROM tempo_claims WHERE finished_at IS NULL", on: client) == [0]
                )
            }
        }

        @Test func aRunningClaimIsRenewedPastItsLease() async throws {
            try await withDatabase { _, client in
                let (logger, date) = (Self.logger, Self.date)
                let coordinator = try PostgresJobCoordinator(
                    client: client, replica: "a", configuration: .init(lease: .seconds(3)))
                let claim = try #require(
                    try await step("claiming") {
                        try await coordinator.claim(job: "report", plannedDate: date, logger: logger)
                    })
                // Wait (generously) until the lease was extended past its first end, on the server's clock.
                let leaseEnd: PostgresQuery =
                    "SELECT (extract(epoch FROM lease_until) * 1000000)::bigint FROM tempo_claims"
                let first = try await integers(leaseEnd, on: client)
                var renewed = false
                for _ in 0..<600 where !renewed {
                    try await Task.sleep(for: .milliseconds(50))
                    renewed = try await integers(leaseEnd, on: client)[0] > first[0]
                }
                #expect(renewed)
                #expect(try await step("checking the claim") { await claim.isHeld() })
                try await step("releasing") { await claim.release(succeeded: true) }
            }
        }

        @Test func aClaimCutOffFromItsDatabaseForItsLeaseIsLostStopsRenewingAndItsDateIsFree() async throws {
            try await withDatabase { server, client in
                let date = Self.date
                let name = try await step("reading the database's name") {
                    var name = ""
                    for try await value in try await client.query("SELECT current_database()").decode(String.self) {
                        name = value
                    }
                    return name
                }
                // The replica's own client, whose pool is shut down below: every later query of its claim fails.
                let replicaClient = PostgresClient(configuration: server.configuration(database: name))
                let running = Task { await replicaClient.run() }
                defer { running.cancel() }
                let log = RecordingLog()
                let coordinator = try PostgresJobCoordinator(
                    client: replicaClient, replica: "cut-off", configuration: .init(lease: .milliseconds(600)))
                let claim = try #require(
                    try await step("claiming") {
                        try await coordinator.claim(job: "report", plannedDate: date, logger: log.logger)
                    })
                running.cancel()
                try await step("waiting for the claim to be given up", within: .seconds(30)) {
                    while log.count("the claim was lost") == 0 { try await Task.sleep(for: .milliseconds(50)) }
                }
                #expect(log.count("could not be reached for the lease's length") == 1)
                #expect(try await step("checking the claim") { await !claim.isHeld() })
                // Its lease ended on the server too: another replica takes the date over.
                let survivor = try PostgresJobCoordinator(client: client, replica: "survivor")
                let taken = try #require(
                    try await step("taking the date over") {
                        try await survivor.claim(job: "report", plannedDate: date, logger: Self.logger)
                    })
                #expect(taken.fencingToken > claim.fencingToken)
                // No renewal after the claim was given up (this cannot fail wrongly on a loaded machine).
                let renewals = log.count("cannot renew")
                try await Task.sleep(for: .seconds(1))
                #expect(log.count("cannot renew") == renewals)
                try await step("releasing") { await taken.release(succeeded: true) }
                try await endClient(running)
            }
        }

        @Test func aReleaseAfterTheLeaseRanOutLeavesTheDateToBeClaimedAgain() async throws {
            try await withDatabase { _, client in
                let (logger, date) = (Self.logger, Self.date)
                let coordinator = try PostgresJobCoordinator(client: client, replica: "late")
                let claim = try #require(
                    try await step("claiming") {
                        try await coordinator.claim(job: "report", plannedDate: date, logger: logger)
                    }
                )
                try await step("expiring the lease, then releasing") {
                    try await client.query("UPDATE tempo_claims SET lease_until = now() - interval '1 second'")
                    await claim.release(succeeded: true)
                }
                #expect(
                    try await integers("SELECT count(*) FROM tempo_claims WHERE finished_at IS NULL", on: client) == [1]
                )
                let survivor = try PostgresJobCoordinator(client: client, replica: "survivor")
                let again = try await step("claiming the date again") {
                    try await survivor.claim(job: "report", plannedDate: date, logger: logger)?.fencingToken
                }
                #expect(again.map { $0 > claim.fencingToken } == true)
            }
        }

        @Test func aLeaseUnderAMillisecondThrowsNamingIt() async throws {
            try await withDatabase(migrated: false) { _, client in
                let error = #expect(throws: JobError.self) {
                    try PostgresJobCoordinator(client: client, replica: "a", configuration: .init(lease: .zero))
                }
                #expect(error?.code == .invalidConfiguration)
                #expect(error?.message.contains("0.0 seconds") == true)
            }
        }
    }
}
#endif
