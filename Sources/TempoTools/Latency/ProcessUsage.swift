import CTempoToolsShims

/// The process's CPU time and context switches so far (`getrusage(RUSAGE_SELF)`), to report the CPU and the
/// wakeups a measurement cost beside its lateness.
struct ProcessUsage {
    let cpuTime: Duration
    let contextSwitches: Int

    static func now() -> ProcessUsage {
        var cpuNanoseconds: Int64 = 0
        var switches: Int64 = 0
        ctempo_process_usage(&cpuNanoseconds, &switches)
        return ProcessUsage(cpuTime: .nanoseconds(cpuNanoseconds), contextSwitches: Int(switches))
    }
}
