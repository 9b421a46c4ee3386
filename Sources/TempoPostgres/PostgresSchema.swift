#if Postgres
public import Logging
public import PostgresNIO
import TempoJobs

/// The tables of TempoPostgres, created and migrated by ``migrate(on:logger:)``, with the version recorded in
/// `tempo_schema`.
///
/// Version 1: `tempo_claims` (one row per claimed job and planned date, its fencing token, replica and lease),
/// `tempo_cursors` (one row per job) and the sequence `tempo_claim_tokens`.
///
/// Version 2: two partial indexes of `tempo_claims` on `planned_at`: `tempo_claims_unfinished` (claims not
/// finished, newest first: the read of abandoned dates) and `tempo_claims_finished` (finished claims: their removal
/// after ``PostgresJobCoordinator/Configuration/retention``, in batches). Migrating from version 1 builds them in
/// the migration's transaction, which keeps claims from being written meanwhile (1.6 s for 2,000,000 rows, measured
/// on a 2-core machine).
///
/// Version 3: the operators' tables of `JobControlStore` (issue #45): `tempo_jobs` (one row per job a scheduler
/// published: its schedule in words, next dates, publishing replica, state and when it changed),
/// `tempo_run_requests` (pending run-now requests) and `tempo_runs` (each job's bounded history, newest by `id`).
public enum PostgresSchema {
    /// The schema version this version of TempoPostgres creates and uses.
    public static let currentVersion = 3

    /// The statements of each version, in order; version `n` is `migrations[n - 1]`.
    package static let migrations: [[PostgresQuery]] = [
        [
            "CREATE SEQUENCE tempo_claim_tokens",
            """
            CREATE TABLE tempo_claims (
                job text NOT NULL, planned_at timestamptz NOT NULL, token bigint NOT NULL, replica text NOT NULL,
                lease_until timestamptz NOT NULL, finished_at timestamptz, succeeded boolean,
                PRIMARY KEY (job, planned_at))
            """,
            "CREATE TABLE tempo_cursors (job text PRIMARY KEY, last_date timestamptz NOT NULL, version integer NOT NULL)",
        ],
        [
            """
            CREATE INDEX tempo_claims_unfinished ON tempo_claims (planned_at DESC) WHERE finished_at IS NULL
            """,
            "CREATE INDEX tempo_claims_finished ON tempo_claims (planned_at) WHERE finished_at IS NOT NULL",
        ],
        [
            """
            CREATE TABLE tempo_jobs (
                job text PRIMARY KEY, schedule text NOT NULL, next_dates timestamptz[] NOT NULL, replica text NOT NULL,
                published_at timestamptz NOT NULL, state text NOT NULL DEFAULT 'active', state_changed_at timestamptz)
            """,
            """
            CREATE TABLE tempo_run_requests (
                job text NOT NULL, requested_at timestamptz NOT NULL, PRIMARY KEY (job, requested_at))
            """,
            """
            CREATE TABLE tempo_runs (
                id bigserial PRIMARY KEY, job text NOT NULL, planned_at timestamptz NOT NULL, trigger text NOT NULL,
                replica text NOT NULL, started_at timestamptz NOT NULL, ended_at timestamptz NOT NULL,
                attempts integer NOT NULL, outcome text NOT NULL, error text, token bigint NOT NULL)
            """,
            "CREATE INDEX tempo_runs_job ON tempo_runs (job, id DESC)",
        ],
    ]

    /// The schema version of the database behind `client` without changing it (0 when TempoPostgres never
    /// migrated it): what an operator's tool reads before it reads the tables.
    ///
    /// - Parameters:
    ///   - client: A client whose `run()` is going.
    ///   - logger: The statements' logger.
    /// - Returns: The version.
    /// - Throws: `JobError` `newerSchema` naming the version when it is newer than ``currentVersion``; the
    ///   database's errors otherwise.
    public static func checkVersion(on client: PostgresClient, logger: Logger) async throws -> Int {
        var exists = false
        for try await found in try await client.query(
            "SELECT to_regclass('tempo_schema') IS NOT NULL", logger: logger
        ).decode(Bool.self) {
            exists = found
        }
        guard exists else { return 0 }
        var version = 0
        for try await found in try await client.query(
            "SELECT coalesce(max(version), 0)::bigint FROM tempo_schema", logger: logger
        ).decode(Int64.self) {
            version = Int(found)
        }
        guard version <= currentVersion else { throw newerSchema(version) }
        return version
    }

    private static func newerSchema(_ found: Int) -> JobError {
        JobError(
            .newerSchema,
            message: "the database's schema is version \(found); this TempoPostgres knows up to \(currentVersion)")
    }

    /// Creates the tables or brings them to ``currentVersion``, in one transaction under an advisory lock, so
    /// that replicas starting together migrate once. Call it before the scheduler runs.
    ///
    /// - Parameters:
    ///   - client: A client whose `run()` is going.
    ///   - logger: Where each applied version is logged.
    /// - Returns: The version found before migrating (0 for an empty database).
    /// - Throws: `JobError` `newerSchema` naming the version when the database's is newer; the
    ///   database's errors otherwise (nothing changes then).
    @discardableResult
    public static func migrate(on client: PostgresClient, logger: Logger) async throws -> Int {
        do {
            return try await migrateInTransaction(on: client, logger: logger)
        } catch let error as PostgresTransactionError {
            // postgres-nio wraps what the transaction's closure threw; a newer schema is this product's own error.
            if let refusal = error.closureError as? JobError { throw refusal }
            throw error
        }
    }

    private static func migrateInTransaction(on client: PostgresClient, logger: Logger) async throws -> Int {
        try await client.withTransaction(logger: logger) { connection in
            // 0x74656d706f = "tempo": serializes concurrent migrations, released at commit.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Int64(0x74_656d_706f)))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS tempo_schema (version integer NOT NULL, applied_at timestamptz NOT NULL)",
                logger: logger)
            var found = 0
            for try await version in try await connection.query(
                "SELECT coalesce(max(version), 0)::bigint FROM tempo_schema", logger: logger
            ).decode(Int64.self) {
                found = Int(version)
            }
            guard found <= currentVersion else { throw newerSchema(found) }
            for version in stride(from: found + 1, through: currentVersion, by: 1) {
                for statement in migrations[version - 1] {
                    try await connection.query(statement, logger: logger)
                }
                try await connection.query(
                    "INSERT INTO tempo_schema (version, applied_at) VALUES (\(version), now())", logger: logger)
                logger.info("postgres: schema migrated", metadata: ["version": "\(version)"])
            }
            return found
        }
    }
}
#endif
