#if Postgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import TempoJobs
import TempoPostgres
import Testing

/// Waits until a statement of this database like `pattern` waits for a lock (polling `pg_stat_activity`).
private func waitForALockWait(of pattern: String, on client: PostgresClient) async throws {
    while try await integers(
        """
        SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() \
        AND query LIKE \(pattern)
        """, on: client) == [0]
    {
        try await Task.sleep(for: .milliseconds(20))
    }
}

extension PostgresTests {
    /// A stale run's write is refused by `withFencedTransaction`, in every isolation level, where the article's
    /// former check (`lease_until > now()`, no lock) accepted it.
    @Suite struct FenceTests {
        static let logger = Logger(label: "test")
        static let date = Date(timeIntervalSince1970: 1_800_000_000.4)
        static let levels: [PostgresJobClaim.IsolationLevel] = [.readCommitted, .repeatableRead, .serializable]

        /// The article's former check (the lease against `now()`, the transaction's start, and no lock), or its
        /// current one (`clock_timestamp()`, `FOR SHARE`).
        static func handWrittenInsert(_ claim: PostgresJobClaim, former: Bool) -> PostgresQuery {
            let check =
                former ? "lease_until > now()" : "finished_at IS NULL AND lease_until > clock_timestamp() FOR SHARE"
            var query: PostgresQuery = """
                INSERT INTO results SELECT \(claim.job), \(claim.plannedDate), \(claim.fencingToken) WHERE EXISTS \
                (SELECT 1 FROM tempo_claims WHERE job = \(claim.job) AND planned_at = \(claim.plannedDate) \
                AND token = \(claim.fencingToken) AND 
                """
            query.sql += check + ") RETURNING 1::bigint"
            return query
        }

        /// What a hand-written check did with a stale write.
        enum Outcome: Equatable {
            case inserted(Int)
            case serializationFailure
        }

        static func insert(_ claim: PostgresJobClaim) -> PostgresQuery {
            "INSERT INTO results VALUES (\(claim.job), \(claim.plannedDate), \(claim.fencingToken))"
        }

        static func claim(_ coordinator: PostgresJobCoordinator) async throws -> PostgresJobClaim {
            let claim = try await step("claiming") {
                try await coordinator.claim(job: "report", plannedDate: date, logger: logger)
            }
            return try #require(claim as? PostgresJobClaim)
        }

        static func createResults(_ client: PostgresClient) async throws {
            try await step("creating the results table") {
                try await client.query("CREATE TABLE results (job text, planned_at timestamptz, token bigint)")
            }
        }

        /// Runs a hand-written check in a transaction begun (its first statement run) while the lease held, after
        /// `change` ran on another connection; returns the rows it inserted (the transaction commits), or the
        /// server's serialization failure (SQLSTATE 40001; the transaction rolls back).
        static func handWrittenWrite(
            _ claim: PostgresJobClaim, former: Bool, level: String, on client: PostgresClient,
            after change: @escaping @Sendable () async throws -> Void
        ) async throws -> Outcome {
            try await step("a hand-written check in a \(level) transaction") {
                try await client.withConnection { connection in
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(level)"), logger: logger)
                    do {
                        try await connection.query("SELECT count(*) FROM tempo_claims", logger: logger)
                        try await change()
                        var inserted = 0
                        for try await _ in try await connection.query(
                            Self.handWrittenInsert(claim, former: former), logger: logger
                        ).decode(Int64.self) {
                            inserted += 1
                        }
                        try await connection.query("COMMIT", logger: logger)
                        return .inserted(inserted)
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: logger)
                        if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "40001" {
                            return .serializationFailure
                        }
                        throw error
                    }
                }
            }
        }

        @Test(arguments: ["READ COMMITTED", "REPEATABLE READ"], [true, false])
        func aHandWrittenCheckAndAWriteMadeAfterTheLeaseRanOut(level: String, former: Bool) async throws {
            try await withDatabase { _, client in
                try await Self.createResults(client)
                let claim = try await Self.claim(try PostgresJobCoordinator(client: client, replica: "a"))
                // The lease runs out after the transaction began: now() is its start, so the former check passes.
                let outcome = try await Self.handWrittenWrite(claim, former: former, level: level, on: client) {
                    try await client.query("UPDATE tempo_claims SET lease_until = clock_timestamp()")
                }
                if former {
                    #expect(outcome == .inserted(1), "the former check refused: the documented defect is gone")
                } else {
                    #expect(outcome == .inserted(0) || outcome == .serializationFailure, "\(outcome)")
                }
            }
        }

        @Test(arguments: [true, false])
        func aHandWrittenCheckUnderRepeatableReadAndAStaleWriteAfterATakeover(former: Bool) async throws {
            try await withDatabase { _, client in
                try await Self.createResults(client)
                let stale = try await Self.claim(try PostgresJobCoordinator(client: client, replica: "frozen"))
                let survivor = try PostgresJobCoordinator(client: client, replica: "survivor")
                let fresh = Mutex<PostgresJobClaim?>(nil)
                let outcome = try await Self.handWrittenWrite(
                    stale, former: former, level: "REPEATABLE READ", on: client
                ) {
                    try await client.query("UPDATE tempo_claims SET lease_until = clock_timestamp() - interval '1 s'")
                    let taken = try await Self.claim(survivor)
                    fresh.withLock { $0 = taken }
                }
                let freshToken = try #require(fresh.withLock { $0?.fencingToken })
                #expect(freshToken > stale.fencingToken)
                if former {
                    #expect(outcome == .inserted(1), "the former check refused: the documented defect is gone")
                } else {
                    #expect(outcome == .inserted(0) || outcome == .serializationFailure, "\(outcome)")
                }
            }
        }

        /// Autocommit: the check passes, the write waits (here for another transaction's row of the same key), a
        /// replica takes the date over meanwhile. The former check's write then commits after the takeover; the
        /// current one's lock makes the takeover wait for it.
        @Test(arguments: [true, false])
        func aHandWrittenCheckInAutocommitAndATakeoverWhileItsWriteWaits(former: Bool) async throws {
            try await withDatabase { _, client in
                try await step("creating the results table, keyed by date") {
                    try await client.query(
                        "CREATE TABLE results (job text, planned_at timestamptz, token bigint, PRIMARY KEY (job, planned_at))"
                    )
                }
                let stale = try await Self.claim(try PostgresJobCoordinator(client: client, replica: "stale"))
                let survivor = try PostgresJobCoordinator(client: client, replica: "survivor")
                try await step("the stale write and the takeover", within: .seconds(120)) {
                    try await client.withConnection { blocker in
                        // Holds the results' key in an open transaction: the stale write waits for it after its check.
                        try await blocker.query("BEGIN", logger: Self.logger)
                        try await blocker.query(
                            "INSERT INTO results VALUES ('report', \(Self.date), 0)", logger: Self.logger)
                        let write = Task {
                            var inserted = 0
                            for try await _ in try await client.query(Self.handWrittenInsert(stale, former: former))
                                .decode(Int64.self)
                            {
                                inserted += 1
                            }
                            return inserted
                        }
                        try await waitForALockWait(of: "INSERT INTO results SELECT%", on: client)
                        let takeover = Task {
                            try await client.query(
                                "UPDATE tempo_claims SET lease_until = clock_timestamp() - interval '1 s'")
                            return try await Self.claim(survivor).fencingToken
                        }
                        if former {
                            // The takeover commits while the stale write waits.
                            #expect(try await takeover.value > stale.fencingToken)
                        } else {
                            // The check's lock holds the claim's row: the takeover waits for the write.
                            try await waitForALockWait(of: "UPDATE tempo_claims SET lease_until%", on: client)
                        }
                        try await blocker.query("ROLLBACK", logger: Self.logger)
                        // Either way the write commits: after the takeover (former), or before it (the lock).
                        #expect(try await write.value == 1)
                        #expect(try await takeover.value > stale.fencingToken)
                    }
                }
            }
        }

        @Test(arguments: levels)
        func aFencedWriteAfterTheLeaseRanOutIsRefused(level: PostgresJobClaim.IsolationLevel) async throws {
            try await withDatabase { _, client in
                try await Self.createResults(client)
                let claim = try await Self.claim(try PostgresJobCoordinator(client: client, replica: "a"))
                try await step("expiring the lease") {
                    try await client.query("UPDATE tempo_claims SET lease_until = clock_timestamp()")
                }
                let ran = Atomic(false)
                let error = await #expect(throws: JobError.self) {
                    try await step("a fenced write") {
                        try await claim.withFencedTransaction(level) { connection in
                            ran.store(true, ordering: .relaxed)
                            try await connection.query(Self.insert(claim), logger: Self.logger)
                        }
                    }
                }
                #expect(error?.code == .claimLost)
                #expect(error?.message.contains("token \(claim.fencingToken)") == true)
                let bodyRan = ran.load(ordering: .relaxed)
                #expect(!bodyRan)
                #expect(try await integers("SELECT count(*) FROM results", on: client) == [0])
                // Lost for good: refused again without a new lease, and isHeld agrees.
                #expect(await !claim.isHeld())
            }
        }

        @Test(arguments: levels)
        func aFencedWriteAfterATakeoverIsRefusedAndTheNewHoldersIsTaken(
            level: PostgresJobClaim.IsolationLevel
        ) async throws {
            try await withDatabase { _, client in
                try await Self.createResults(client)
                let stale = try await Self.claim(try PostgresJobCoordinator(client: client, replica: "frozen"))
                try await step("expiring the lease") {
                    try await client.query("UPDATE tempo_claims SET lease_until = clock_timestamp() - interval '1 s'")
                }
                let fresh = try await Self.claim(try PostgresJobCoordinator(client: client, replica: "survivor"))
                let error = await #expect(throws: JobError.self) {
                    try await step("the stale run's fenced write") {
                        try await stale.withFencedTransaction(level) { connection in
                            try await connection.query(Self.insert(stale), logger: Self.logger)
                        }
                    }
                }
                #expect(error?.code == .claimLost)
                let value = try await step("the fresh run's fenced write") {
                    try await fresh.withFencedTransaction(level) { connection in
                        try await connection.query(Self.insert(fresh), logger: Self.logger)
                        return 42
                    }
                }
                #expect(value == 42)
                #expect(try await integers("SELECT token FROM results", on: client) == [fresh.fencingToken])
            }
        }

        @Test func aBodysErrorRollsTheTransactionBackAndIsRethrown() async throws {
            struct Failure: Error {}
            try await withDatabase { _, client in
                try await Self.createResults(client)
                let claim = try await Self.claim(try PostgresJobCoordinator(client: client, replica: "a"))
                await #expect(throws: Failure.self) {
                    try await step("a fenced write that throws") {
                        try await claim.withFencedTransaction { connection in
                            try await connection.query(Self.insert(claim), logger: Self.logger)
                            throw Failure()
                        }
                    }
                }
                #expect(try await integers("SELECT count(*) FROM results", on: client) == [0])
                #expect(await claim.isHeld())
            }
        }

        /// The lock: while a fenced transaction runs, a takeover of its date waits for it, even past the lease.
        ///
        /// The lease is shortened to `margin` before the transaction begins, so that it runs out while the
        /// transaction holds the claim's lock. On a busy machine more than `margin` can pass before the transaction's
        /// first statement; then the transaction is refused before its body runs (as it must be), and the scenario
        /// is run again in a new database with a longer margin.
        @Test func aTakeoverWaitsForTheFencedTransactionEvenPastTheLease() async throws {
            for margin in [300, 1_000, 3_000, 10_000] {
                if try await takeoverWaitsForTheFencedTransaction(margin: margin) { return }
            }
            Issue.record("every fenced transaction was refused: the lease ran out before each one began")
        }

        /// Returns `false` if the transaction was refused before its body ran (the lease ran out first).
        private func takeoverWaitsForTheFencedTransaction(margin milliseconds: Int) async throws -> Bool {
            try await withDatabase { _, client in
                try await Self.createResults(client)
                // A long lease: no renewal of the stale claim waits for the lock too (it would race the takeover).
                let stale = try await Self.claim(
                    try PostgresJobCoordinator(
                        client: client, replica: "slow", configuration: .init(lease: .seconds(60))))
                let survivor = try PostgresJobCoordinator(client: client, replica: "survivor")
                try await step("shortening the lease to \(milliseconds) ms") {
                    try await client.query(
                        PostgresQuery(
                            unsafeSQL: """
                                UPDATE tempo_claims SET lease_until = clock_timestamp() \
                                + interval '\(milliseconds) milliseconds'
                                """))
                }
                let takeover = Mutex<Task<Int64?, any Error>?>(nil)
                let began = Atomic<Bool>(false)
                do {
                    try await step("a fenced write that outlives its lease", within: .seconds(120)) {
                        try await stale.withFencedTransaction { connection in
                            began.store(true, ordering: .relaxed)
                            // Wait (on the server's clock) until the lease ran out.
                            var expired = false
                            while !expired {
                                for try await value in try await connection.query(
                                    "SELECT clock_timestamp() > lease_until FROM tempo_claims", logger: Self.logger
                                ).decode(Bool.self) {
                                    expired = value
                                }
                                if !expired { try await Task.sleep(for: .milliseconds(20)) }
                            }
                            let task = Task {
                                try await survivor.claim(job: "report", plannedDate: Self.date, logger: Self.logger)?
                                    .fencingToken
                            }
                            takeover.withLock { $0 = task }
                            // Wait until the survivor's claim waits for this transaction's lock.
                            try await waitForALockWait(of: "INSERT INTO tempo_claims%", on: client)
                            try await connection.query(Self.insert(stale), logger: Self.logger)
                        }
                    }
                } catch let error as JobError where error.code == .claimLost && !began.load(ordering: .relaxed) {
                    return false
                }
                let task = try #require(takeover.withLock { $0 })
                let taken = try await step("the takeover") { try await task.value }
                #expect(taken.map { $0 > stale.fencingToken } == true)
                #expect(try await integers("SELECT token FROM results", on: client) == [stale.fencingToken])
                return true
            }
        }
    }
}

#endif
