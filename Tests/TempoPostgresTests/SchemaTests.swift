#if Postgres
import Logging
import PostgresNIO
import TempoJobs
import TempoPostgres
import Testing

extension PostgresTests {
    /// The product creates its tables and records their version; replicas starting together migrate once.
    @Suite struct SchemaTests {
        @Test func migratingAMigratedDatabaseFindsItsVersionAndChangesNothing() async throws {
            try await withDatabase { _, client in
                // Three replicas migrating at once (the fixture migrated already: they all find version 3).
                let found = try await migrateThreeAtOnce(client)
                #expect(found == [3, 3, 3])
                #expect(
                    try await integers("SELECT version::bigint FROM tempo_schema ORDER BY version", on: client) == [
                        1, 2, 3,
                    ])
            }
        }

        @Test func concurrentFirstMigrationsCreateTheTablesOnceAndRecordTheVersion() async throws {
            try await withDatabase(migrated: false) { _, client in
                let found = try await migrateThreeAtOnce(client)
                #expect(found.sorted() == [0, 3, 3])
                #expect(
                    try await integers("SELECT version::bigint FROM tempo_schema ORDER BY version", on: client) == [
                        1, 2, 3,
                    ])
                #expect(
                    try await integers(
                        """
                        SELECT count(*) FROM information_schema.tables \
                        WHERE table_name IN ('tempo_claims', 'tempo_cursors', 'tempo_jobs', 'tempo_run_requests', 'tempo_runs')
                        """, on: client) == [5])
            }
        }

        @Test func version1MigratesToTheCurrentVersionKeepingItsRowsAndAddingTheIndexesAndTables() async throws {
            try await withDatabase(migrated: false) { _, client in
                try await step("creating version 1 as the former release did, with a claim and a cursor") {
                    try await client.query(
                        "CREATE TABLE tempo_schema (version integer NOT NULL, applied_at timestamptz NOT NULL)")
                    for statement in PostgresSchema.migrations[0] { try await client.query(statement) }
                    try await client.query("INSERT INTO tempo_schema (version, applied_at) VALUES (1, now())")
                    try await client.query(
                        """
                        INSERT INTO tempo_claims VALUES ('report', now(), nextval('tempo_claim_tokens'), 'a', now(), \
                        NULL, NULL)
                        """)
                    try await client.query("INSERT INTO tempo_cursors VALUES ('report', now(), 1)")
                }
                let found = try await step("migrating") {
                    try await PostgresSchema.migrate(on: client, logger: Logger(label: "test"))
                }
                #expect(found == 1)
                #expect(
                    try await integers("SELECT version::bigint FROM tempo_schema ORDER BY version", on: client) == [
                        1, 2, 3,
                    ])
                #expect(
                    try await integers(
                        """
                        SELECT count(*) FROM pg_indexes WHERE tablename = 'tempo_claims' \
                        AND indexname IN ('tempo_claims_unfinished', 'tempo_claims_finished')
                        """, on: client) == [2])
                #expect(try await integers("SELECT count(*) FROM tempo_claims", on: client) == [1])
                #expect(try await integers("SELECT count(*) FROM tempo_cursors", on: client) == [1])
            }
        }

        @Test func aNewerSchemaIsRefusedNamingItsVersion() async throws {
            try await withDatabase { _, client in
                try await step("recording version 7") {
                    try await client.query("INSERT INTO tempo_schema (version, applied_at) VALUES (7, now())")
                }
                let error = await #expect(throws: JobError.self) {
                    try await step("migrating") {
                        try await PostgresSchema.migrate(on: client, logger: Logger(label: "test"))
                    }
                }
                #expect(error?.code == .newerSchema)
                #expect(error?.message.contains("version 7") == true)
                let checked = await #expect(throws: JobError.self) {
                    try await PostgresSchema.checkVersion(on: client, logger: Logger(label: "test"))
                }
                #expect(checked?.code == .newerSchema && checked?.message.contains("version 7") == true)
            }
        }

        private func migrateThreeAtOnce(_ client: PostgresClient) async throws -> [Int] {
            try await step("three concurrent migrations") {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<3 {
                        group.addTask { try await PostgresSchema.migrate(on: client, logger: Logger(label: "test")) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
        }
    }
}
#endif
