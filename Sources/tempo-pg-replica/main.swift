// A replica process for the process-level tests and the measurement of TempoPostgres (issue #29). Three modes:
//
// tempo-pg-replica SOCKET DATABASE REPLICA LEASE_MS HOLD_MS
//     Claims one date of the job "report", holds the claim (renewing its lease) while its body sleeps, then writes
//     the date's result with a check of its fencing token, and says what happened: "claimed TOKEN" (or "refused"),
//     then "result written" or "result refused", "held true" or "held false", "released". The tests kill it
//     (SIGKILL) or freeze it (SIGSTOP) meanwhile.
// tempo-pg-replica run SOCKET DATABASE REPLICA [--skew-ms S] [--every-ms P] [--hold-ms H] [--lease-ms L] [--seconds N]
//     A JobScheduler on the database (see RunMode.swift): one job every P ms whose runs are recorded in the tables
//     `runs` and `results`, on a wall clock S ms off, for N seconds (0: until killed).
// tempo-pg-replica bench SOCKET DATABASE REPLICA [--jobs J] [--every-ms P] [--spread-ms W] [--seconds N] [--local 1]
//     J jobs every P ms with empty bodies for N seconds (see BenchMode.swift); prints runs, date-to-start times,
//     claim times and CPU time. `--local 1`: the same jobs on one scheduler without the database (the baseline).
// tempo-pg-replica history SOCKET DATABASE REPLICA [--runs N] [--rounds R]
//     The cost per run of keeping history (issue #45; see HistoryMode.swift): finishing statements with and without
//     the `tempo_runs` insert, alternated, timed, with pg_stat_statements' own means beside.
//
// Every line is flushed at once. Built with the trait Postgres only (otherwise it says so and exits 2).
#if Postgres
import Foundation
import Logging
import PostgresNIO
import TempoPostgres

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "run":
    try await runMode(Options(arguments.dropFirst(2)))
case "bench":
    try await benchMode(Options(arguments.dropFirst(2)))
case "history":
    try await historyMode(Options(arguments.dropFirst(2)))
default:
    try await claimMode(arguments)
}
exit(0)
#else
import Foundation

print("tempo-pg-replica: built without the package trait Postgres")
exit(2)
#endif
