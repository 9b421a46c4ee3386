import Tempo

extension LatencyReport {
    static let columns = [
        "backend", "ticks", "p50", "p90", "p99", "p99.9", "max", "min", "drift", "p50/floor", "p99/floor",
        "wakeups/tick", "cpu µs/tick",
    ]

    /// One row of cells per backend, in the order of ``columns``; lateness in µs.
    func rows() -> [[String]] {
        stats.map { stat in
            [
                stat.backend.rawValue,
                String(stat.ticks),
                formatMicros(stat.p50),
                formatMicros(stat.p90),
                formatMicros(stat.p99),
                formatMicros(stat.p999),
                formatMicros(stat.maxMicros),
                formatMicros(stat.minMicros),
                formatMicros(stat.driftMicros),
                formatRatio(ratio(stat.p50, floor?.p50)),
                formatRatio(ratio(stat.p99, floor?.p99)),
                String((stat.wakeupsPerTick * 100).rounded() / 100),
                formatMicros(stat.cpuMicrosPerTick),
            ]
        }
    }

    /// The aligned result table, with a header naming the settings.
    func table() -> String {
        let header = Self.columns
        let body = rows()
        let widths = header.indices.map { column in
            ([header] + body).map { $0[column].count }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(to: widths[column])
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
        var text =
            "tempo latency: period \(formatDuration(period)), \(formatDuration(duration)) per backend, taking turns in \(rounds) round\(rounds == 1 ? "" : "s")\n"
        text += "lateness in µs (HdrHistogram, 3 significant digits); drift = last tick vs its slot on the grid\n"
        text +=
            "wakeups/tick and cpu µs/tick: the whole process's context switches and CPU time (getrusage) per tick\n\n"
        text += line(header) + "\n"
        for row in body { text += line(row) + "\n" }
        for stat in stats where stat.early > 0 {
            text += "warning: \(stat.backend) ran \(stat.early) tick(s) before their deadline\n"
        }
        return text
    }

    /// A text histogram per backend: the share of ticks in logarithmic lateness buckets.
    func textHistogram(width: Int = 40) -> String {
        let edges: [Double] = [0, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
        var text = "\nlateness distribution (share of ticks per bucket, µs)\n"
        for stat in stats {
            text += "\n\(stat.backend.rawValue)  (\(stat.backend.summary))\n"
            for index in edges.indices {
                let low = edges[index]
                let high = index + 1 < edges.count ? edges[index + 1] : Double.infinity
                let share = stat.fractionLater(than: low) - (high.isFinite ? stat.fractionLater(than: high) : 0)
                guard share > 0 else { continue }
                let label = high.isFinite ? "\(Int(low))–\(Int(high))" : "> \(Int(low))"
                let bar = Self.bar(share * Double(width))
                text += "  \(label.padding(to: 11)) \(bar) \(formatPercent(share))\n"
            }
        }
        return text
    }

    /// A bar `cells` long in eighths of a block; at least a thin sliver, so that rare buckets show.
    static func bar(_ cells: Double) -> String {
        let eighths = max(1, Int((cells * 8).rounded()))
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        return String(repeating: "█", count: eighths / 8) + partial
    }

    /// Comma-separated values: a header line and one line per backend.
    func csv() -> String {
        let header =
            [
                "backend", "ticks", "missed", "early", "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "min_us",
                "drift_us",
            ]
            + ["p50_ratio_to_floor", "p99_ratio_to_floor", "wakeups_per_tick", "cpu_us_per_tick"]
        var text = header.joined(separator: ",") + "\n"
        for (stat, row) in zip(stats, rows()) {
            var cells = row
            cells.insert(contentsOf: [String(stat.missed), String(stat.early)], at: 2)
            // Plain numbers for machines: no "x" suffix on the ratios, empty when there is no floor.
            text += cells.map { $0 == "-" ? "" : $0.hasSuffix("x") ? String($0.dropLast()) : $0 }.joined(separator: ",")
            text += "\n"
        }
        return text
    }

    /// A JSON object with the settings and one entry per backend (lateness in µs).
    func json() -> String {
        let entries = stats.map { stat in
            JSONReport.object([
                "backend": .text(stat.backend.rawValue),
                "description": .text(stat.backend.summary),
                "ticks": .integer(stat.ticks),
                "missed": .integer(stat.missed),
                "early": .integer(stat.early),
                "p50_us": .number(stat.p50),
                "p90_us": .number(stat.p90),
                "p99_us": .number(stat.p99),
                "p999_us": .number(stat.p999),
                "max_us": .number(stat.maxMicros),
                "min_us": .number(stat.minMicros),
                "drift_us": .number(stat.driftMicros),
                "p50_ratio_to_floor": .number(ratio(stat.p50, floor?.p50)),
                "p99_ratio_to_floor": .number(ratio(stat.p99, floor?.p99)),
                "wakeups_per_tick": .number(stat.wakeupsPerTick),
                "cpu_us_per_tick": .number(stat.cpuMicrosPerTick),
            ])
        }
        return JSONReport.document(
            [
                "period_us": .number(period.microseconds), "duration_us": .number(duration.microseconds),
                "rounds": .integer(rounds),
            ],
            list: "backends", entries: entries)
    }
}

func formatRatio(_ value: Double?) -> String {
    guard let value else { return "-" }
    return String((value * 100).rounded() / 100) + "x"
}

func formatPercent(_ share: Double) -> String {
    let percent = share * 100
    if percent >= 0.1 { return String((percent * 10).rounded() / 10) + "%" }
    return String((percent * 100).rounded() / 100) + "%"
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
