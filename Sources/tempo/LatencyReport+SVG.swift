import Tempo

#if canImport(Glibc)
import Glibc
#endif

extension LatencyReport {
    /// A hand-written SVG plot: for each backend, the share of ticks later than x (log–log), so the
    /// median sits where a curve crosses 50 % and the tail runs down to the right.
    func svg() -> String {
        let width = 900.0
        let height = 540.0
        let left = 80.0
        let right = 250.0
        let top = 50.0
        let bottom = 60.0
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let colors = ["#222222", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]

        let maxMicros = stats.map(\.maxMicros).max() ?? 1
        let minMicros = stats.map(\.minMicros).min() ?? 1
        let xLow = pow(10, log10(max(minMicros, 1)).rounded(.down))
        let xHigh = max(xLow * 10, pow(10, ceil(log10(max(maxMicros, 2)))))
        let maxTicks = Double(stats.map(\.ticks).max() ?? 1)
        let yDecades = max(1, ceil(log10(max(maxTicks, 10))))
        func x(_ micros: Double) -> Double {
            let clamped = min(max(micros, xLow), xHigh)
            return left + (log10(clamped) - log10(xLow)) / (log10(xHigh) - log10(xLow)) * plotWidth
        }
        func y(_ fraction: Double) -> Double {
            let clamped = max(fraction, pow(10, -yDecades))
            return top + (-log10(clamped)) / yDecades * plotHeight
        }
        func fmt(_ value: Double) -> String { String((value * 10).rounded() / 10) }

        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="13">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(fmt(left))" y="28" font-size="16" font-weight="bold">Timer lateness: share of ticks later than x \
            (period \(formatDuration(period)), \(formatDuration(duration)) per backend)</text>

            """
        // Grid and axes.
        var decade = xLow
        while decade <= xHigh * 1.0001 {
            let px = fmt(x(decade))
            svg +=
                "<line x1=\"\(px)\" y1=\"\(fmt(top))\" x2=\"\(px)\" y2=\"\(fmt(top + plotHeight))\" stroke=\"#ddd\"/>\n"
            svg +=
                "<text x=\"\(px)\" y=\"\(fmt(top + plotHeight + 18))\" text-anchor=\"middle\">\(label(decade))</text>\n"
            decade *= 10
        }
        for exponent in 0...Int(yDecades) {
            let fraction = pow(10, -Double(exponent))
            let py = fmt(y(fraction))
            svg +=
                "<line x1=\"\(fmt(left))\" y1=\"\(py)\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(py)\" stroke=\"#ddd\"/>\n"
            svg +=
                "<text x=\"\(fmt(left - 8))\" y=\"\(py)\" dy=\"4\" text-anchor=\"end\">\(percentLabel(fraction))</text>\n"
        }
        let half = fmt(y(0.5))
        svg += "<line x1=\"\(fmt(left))\" y1=\"\(half)\" x2=\"\(fmt(left + plotWidth))\" y2=\"\(half)\" "
        svg += "stroke=\"#bbb\" stroke-dasharray=\"4 4\"/>\n"
        svg +=
            "<text x=\"\(fmt(left + plotWidth - 4))\" y=\"\(half)\" dy=\"-4\" text-anchor=\"end\" fill=\"#888\">p50</text>\n"
        svg += "<rect x=\"\(fmt(left))\" y=\"\(fmt(top))\" width=\"\(fmt(plotWidth))\" height=\"\(fmt(plotHeight))\" "
        svg += "fill=\"none\" stroke=\"#444\"/>\n"
        svg += "<text x=\"\(fmt(left + plotWidth / 2))\" y=\"\(fmt(height - 18))\" text-anchor=\"middle\">"
        svg += "lateness (µs, log scale)</text>\n"
        svg += "<text transform=\"translate(22 \(fmt(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">"
        svg += "share of ticks later than x (log scale)</text>\n"

        // One step curve per backend.
        for (index, stat) in stats.enumerated() {
            let color = colors[index % colors.count]
            let total = Double(stat.histogram.totalCount)
            guard total > 0 else { continue }
            var remaining = total
            var points = ["\(fmt(x(xLow))),\(fmt(y(1)))"]
            for bucket in stat.histogram.recordedValues() {
                let micros = Double(bucket.value) / 1000
                points.append("\(fmt(x(micros))),\(fmt(y(remaining / total)))")
                remaining -= Double(bucket.count)
                points.append("\(fmt(x(micros))),\(fmt(y(remaining / total)))")
            }
            svg +=
                "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>\n"
            let legendY = top + 10 + Double(index) * 44
            let legendX = left + plotWidth + 16
            svg +=
                "<line x1=\"\(fmt(legendX))\" y1=\"\(fmt(legendY))\" x2=\"\(fmt(legendX + 24))\" y2=\"\(fmt(legendY))\" "
            svg += "stroke=\"\(color)\" stroke-width=\"3\"/>\n"
            svg +=
                "<text x=\"\(fmt(legendX + 30))\" y=\"\(fmt(legendY))\" dy=\"4\" font-weight=\"bold\">\(stat.backend)</text>\n"
            var detail = "p50 \(formatMicros(stat.p50)) µs, p99 \(formatMicros(stat.p99)) µs"
            if stat.backend != .floor, let ratio = ratio(stat.p50, floor?.p50) {
                detail += " (\(formatRatio(ratio)))"
            }
            svg +=
                "<text x=\"\(fmt(legendX + 30))\" y=\"\(fmt(legendY + 17))\" font-size=\"11\" fill=\"#444\">\(detail)</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    private func label(_ micros: Double) -> String {
        micros >= 1000 ? "\(Int(micros / 1000)) ms" : "\(Int(micros)) µs"
    }

    private func percentLabel(_ fraction: Double) -> String {
        let percent = fraction * 100
        return percent >= 1 ? "\(Int(percent))%" : "\(percent)%"
    }
}
