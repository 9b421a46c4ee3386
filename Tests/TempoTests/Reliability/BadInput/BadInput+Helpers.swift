import Tempo

extension BadInput {
    /// Malformed, empty, zero and oversized texts for the duration parser (used by the `tempo` command).
    static var parserRows: [BadInput] {
        let texts = [
            "", " ", "5", "ms", "-5s", "+5s", "0s", "0.0ms", "0ns", "5x", "1e3s", "5 s", " 5s", "5s ", "s5", "5s5",
            "1..5s", ".s", "NaNs", "infs", "½s", "٣s", "106752d", "9223372036.854775808s", "99999999999999999999999h",
            "9999999999999999999999999999999999d", "0.0000000000000000001s",
        ]
        return texts.map { text in
            BadInput("DurationParser.parse(\"\(text)\")", .invalidInterval, value: text) {
                _ = try DurationParser.parse(text)
            }
        }
    }

    /// The public validation helpers that other types and user code build on.
    static var errorHelperRows: [BadInput] {
        var rows: [BadInput] = []
        for interval in badIntervals where interval <= .zero || interval > TempoError.maximumDuration {
            rows.append(
                BadInput("TempoError.validateInterval(\(interval))", .invalidInterval, value: interval.exactDescription)
                {
                    try TempoError.validateInterval(interval, name: "period")
                }
            )
        }
        for leeway in badLeeways {
            rows.append(
                BadInput("TempoError.validateLeeway(\(leeway))", .invalidLeeway, value: leeway.exactDescription) {
                    try TempoError.validateLeeway(leeway)
                }
            )
        }
        for seconds in badSeconds where seconds != 1e-10 {
            rows.append(
                BadInput("TempoError.interval(seconds: \(seconds))", .invalidInterval, value: "\(seconds)") {
                    _ = try TempoError.interval(seconds: seconds, name: "period")
                }
            )
        }
        return rows
    }
}
