import TempoTools

extension BenchTable {
    /// A JSON object with the settings and one entry per count and subject: nanoseconds per operation, heap bytes
    /// per timer, and the ratios to `dispatch-source` (`null` where there is none).
    func json() -> String {
        let entries = summaries.map { summary in
            let ratios = summary.ratios
            return JSONReport.object([
                "timers": .integer(summary.count),
                "subject": .text(summary.subject.rawValue),
                "arm_ns_per_op": .number(summary.armNanoseconds),
                "cancel_ns_per_op": .number(summary.cancelNanoseconds),
                "bytes_per_timer": .number(summary.bytesPerTimer),
                "later_rounds_bytes_per_timer": .number(summary.laterBytesPerTimer),
                "arm_ratio": .number(ratios?.arm),
                "cancel_ratio": .number(ratios?.cancel),
                "bytes_ratio": .number(ratios?.bytes),
                "arm_and_cancel_ratio": .number(ratios?.armAndCancel),
                "arm_and_cancel_ratio_min": .number(ratios?.armAndCancelRange.lowerBound),
                "arm_and_cancel_ratio_max": .number(ratios?.armAndCancelRange.upperBound),
            ])
        }
        return JSONReport.document(
            ["rounds": .integer(rounds), "ratios_against": .text("dispatch-source")], list: "results", entries: entries)
    }
}
