#if Jobs
import ArgumentParser
import Foundation
import TempoJobs

/// `tempo jobs`: see and steer the jobs of a TempoJobs store (a PostgreSQL database or a JSON store file).
struct JobsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jobs",
        abstract: "See and steer the jobs of a TempoJobs store: list, show, pause, resume, run-now.",
        discussion: """
            The store is a PostgreSQL database of TempoPostgres replicas (--postgres URL, or the environment variable \
            TEMPO_POSTGRES_URL), or a JSONFileJobStore's file (--store PATH). Exit status: 0 done, 64 usage, \
            65 data (an unknown job, a corrupt file, a schema or file newer than this tempo), 66 no such store, \
            69 PostgreSQL not built in, 74 a file that cannot be read or written, 75 a database that does not \
            answer (try again).
            """,
        subcommands: [List.self, Show.self, Pause.self, Resume.self, RunNow.self]
    )

    /// Lists every job: state, schedule, next date, last run.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the jobs with their state, next date and last run.")
        @OptionGroup var store: JobStoreOptions

        func run() async throws {
            try await store.withStore { store in
                let jobs = try await store.jobOverviews()
                if self.store.json {
                    printJSON(jobs)
                } else if jobs.isEmpty {
                    print("no jobs: no scheduler published one to this store yet")
                } else {
                    print(JobsTable.overviews(jobs))
                }
            }
        }
    }

    /// Shows one job: next dates, last runs, failures, claims.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a job: its next dates, last runs with their errors, and the claims held now.")
        @OptionGroup var store: JobStoreOptions
        @Argument(help: "The job's name.") var name: String
        @Option(help: "The most runs to show (at least 1).") var runs = 20

        func validate() throws {
            try validateCount(runs, option: "--runs")
        }

        func run() async throws {
            try await store.withStore { store in
                guard let detail = try await store.jobDetail(named: name, historyLimit: runs) else {
                    throw JobError(.unknownJob, job: name, message: "no scheduler published a job named \"\(name)\"")
                }
                if self.store.json {
                    printJSON(detail)
                } else {
                    print(JobsTable.detail(detail))
                }
            }
        }
    }

    /// Pauses a job on every replica.
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pause a job on every scheduler of the store: its planned dates are skipped until resumed.")
        @OptionGroup var store: JobStoreOptions
        @Argument(help: "The job's name.") var name: String

        func run() async throws {
            try await store.withStore { store in
                try await store.pause(job: name)
                report(StateChange(job: name, state: .paused), text: "paused \(name)", json: self.store.json)
            }
        }
    }

    /// Resumes a job.
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resume a paused job: it runs from its next date (the paused dates are not caught up).")
        @OptionGroup var store: JobStoreOptions
        @Argument(help: "The job's name.") var name: String

        func run() async throws {
            try await store.withStore { store in
                try await store.resume(job: name)
                report(StateChange(job: name, state: .active), text: "resumed \(name)", json: self.store.json)
            }
        }
    }

    /// Asks for one extra run.
    struct RunNow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run-now",
            abstract: "Ask for one extra run of a job, claimed like a date so that one replica runs it.")
        @OptionGroup var store: JobStoreOptions
        @Argument(help: "The job's name.") var name: String

        func run() async throws {
            try await store.withStore { store in
                let date = try await store.requestRun(of: name)
                report(
                    RunRequest(job: name, requestedAt: date),
                    text: "asked for a run of \(name) at \(JobsTable.format(date))", json: self.store.json)
            }
        }
    }
}

/// What `pause` and `resume` print with `--json`.
struct StateChange: Encodable {
    let job: String
    let state: JobState
}

/// What `run-now` prints with `--json`.
struct RunRequest: Encodable {
    let job: String
    let requestedAt: Date
}

func report(_ value: some Encodable, text: String, json: Bool) {
    if json { printJSON(value) } else { print(text) }
}

/// Prints `value` as JSON (dates in ISO 8601, keys sorted).
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(JobsTable.format(date))
    }
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return }
    print(String(decoding: data, as: UTF8.self))
}
#endif
