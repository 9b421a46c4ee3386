import Foundation

/// The control and history of the jobs of one process's store (``InMemoryJobStore``, ``JSONFileJobStore``): what
/// schedulers published, the operators' control, each job's bounded history and the run-now requests served. A
/// value; its owner keeps it behind a lock.
struct JobControlBook: Codable, Sendable, Hashable {
    var descriptions: [String: JobDescription] = [:]
    var controls: [String: JobControl] = [:]
    /// Each job's runs, oldest first, at most the store's limit.
    var history: [String: [JobRunRecord]] = [:]
    /// The latest run-now date served per job: requests up to it are done.
    var served: [String: Date] = [:]

    /// The control of `job`, its requests already served left out.
    func control(of job: String) -> JobControl {
        var control = controls[job] ?? JobControl()
        if let served = served[job] { control.runRequests.removeAll { $0 <= served } }
        return control
    }

    /// Every known job's control.
    var allControls: [String: JobControl] {
        var all: [String: JobControl] = [:]
        for name in Set(descriptions.keys).union(controls.keys) { all[name] = control(of: name) }
        return all
    }

    func overview(of job: String, now: Date) -> JobOverview? {
        guard let description = descriptions[job] else { return nil }
        let control = control(of: job)
        return JobOverview(
            name: job, schedule: description.schedule,
            nextDates: Array(description.nextDates.filter { $0 > now }.prefix(JobOverview.listedDates)),
            state: control.state, stateChangedAt: control.changedAt, pendingRuns: control.runRequests.count,
            lastRun: history[job]?.last, publishedBy: description.replica, publishedAt: description.publishedAt)
    }

    func overviews(now: Date) -> [JobOverview] {
        descriptions.keys.sorted().compactMap { overview(of: $0, now: now) }
    }

    func detail(of job: String, historyLimit: Int, now: Date) -> JobDetail? {
        guard let overview = overview(of: job, now: now) else { return nil }
        let runs = history[job] ?? []
        return JobDetail(overview: overview, history: Array(runs.suffix(max(0, historyLimit)).reversed()), claims: [])
    }

    /// Sets `job`'s state; throws ``JobError/Code/unknownJob`` for a job never published.
    mutating func set(_ state: JobState, of job: String, at now: Date, store: String) throws(JobError) {
        try requireKnown(job, store: store)
        var control = control(of: job)
        guard control.state != state else { return }
        control.state = state
        control.changedAt = now
        controls[job] = control
    }

    /// Adds a run-now request of `job` dated `now` (later than its other requests and its served one).
    mutating func requestRun(of job: String, at now: Date, store: String) throws(JobError) -> Date {
        try requireKnown(job, store: store)
        var control = control(of: job)
        var date = now
        let latest = max(control.runRequests.last ?? .distantPast, served[job] ?? .distantPast)
        if date <= latest { date = latest.addingTimeInterval(0.001) }
        // Whole microseconds, as a database keeps them, so the date names the same claim everywhere.
        date = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1e6).rounded(.up) / 1e6)
        control.runRequests.append(date)
        controls[job] = control
        return date
    }

    /// Adds a finished run to its job's history (keeping the latest `limit`) and marks a run-now request served.
    mutating func record(_ run: JobRunRecord, limit: Int) {
        var runs = history[run.job] ?? []
        runs.append(run)
        if runs.count > limit { runs.removeFirst(runs.count - limit) }
        history[run.job] = runs
        if run.trigger == .runNow { served[run.job] = max(served[run.job] ?? run.plannedDate, run.plannedDate) }
    }

    private func requireKnown(_ job: String, store: String) throws(JobError) {
        guard descriptions[job] != nil else {
            throw JobError(
                .unknownJob, job: job, message: "\(store): no scheduler published a job named \"\(job)\"")
        }
    }
}
