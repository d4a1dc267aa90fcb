import RealModule
/// An SVG line chart of throughput against fence count, both axes logarithmic, one line
/// per method, so the scaling of each method is seen at a glance.
enum BenchChart {
    struct Series {
        var name: String
        var points: [(fences: Double, rate: Double)]
    }

    static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]

    static func svg(title: String, series: [Series]) -> String {
        let width = 760.0, height = 460.0, left = 80.0, right = 230.0, top = 40.0, bottom = 60.0
        let all = series.flatMap(\.points).filter { $0.rate > 0 && $0.fences > 0 }
        guard !all.isEmpty else { return "<svg xmlns=\"http://www.w3.org/2000/svg\"/>" }
        let xMin = Double.log10(all.map(\.fences).min()!).rounded(.down), xMax = max(xMin + 1, Double.log10(all.map(\.fences).max()!).rounded(.up))
        let yMin = Double.log10(all.map(\.rate).min()!).rounded(.down), yMax = max(yMin + 1, Double.log10(all.map(\.rate).max()!).rounded(.up))
        func x(_ v: Double) -> Double { left + (Double.log10(v) - xMin) / (xMax - xMin) * (width - left - right) }
        func y(_ v: Double) -> Double { top + (yMax - Double.log10(v)) / (yMax - yMin) * (height - top - bottom) }
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        s += "<text x=\"\(left)\" y=\"24\" font-size=\"15\">\(escape(title))</text>\n"
        // Grid and axis labels, one line per decade.
        for e in Int(xMin)...Int(xMax) {
            let px = x(Double.pow(10, Double(e)))
            s += "<line x1=\"\(px)\" y1=\"\(top)\" x2=\"\(px)\" y2=\"\(height - bottom)\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(px)\" y=\"\(height - bottom + 18)\" text-anchor=\"middle\">\(label(e))</text>\n"
        }
        for e in Int(yMin)...Int(yMax) {
            let py = y(Double.pow(10, Double(e)))
            s += "<line x1=\"\(left)\" y1=\"\(py)\" x2=\"\(width - right)\" y2=\"\(py)\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(left - 8)\" y=\"\(py + 4)\" text-anchor=\"end\">\(label(e))</text>\n"
        }
        s += "<text x=\"\((left + width - right) / 2)\" y=\"\(height - 18)\" text-anchor=\"middle\">fences (log scale)</text>\n"
        s += "<text transform=\"translate(20,\((top + height - bottom) / 2)) rotate(-90)\" text-anchor=\"middle\">fixes (nearest10: queries) per second, log scale</text>\n"
        for (i, line) in series.enumerated() {
            let color = colors[i % colors.count]
            let pts = line.points.filter { $0.rate > 0 }.sorted { $0.fences < $1.fences }
            let path = pts.map { "\(x($0.fences)),\(y($0.rate))" }.joined(separator: " ")
            s += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" points=\"\(path)\"/>\n"
            for p in pts { s += "<circle cx=\"\(x(p.fences))\" cy=\"\(y(p.rate))\" r=\"3\" fill=\"\(color)\"/>\n" }
            let ly = top + 16 + Double(i) * 18
            s += "<line x1=\"\(width - right + 16)\" y1=\"\(ly - 4)\" x2=\"\(width - right + 40)\" y2=\"\(ly - 4)\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
            s += "<text x=\"\(width - right + 46)\" y=\"\(ly)\">\(escape(line.name))</text>\n"
        }
        return s + "</svg>\n"
    }

    static func label(_ exponent: Int) -> String {
        switch exponent {
        case 3: "1k"
        case 4: "10k"
        case 5: "100k"
        case 6: "1M"
        case 7: "10M"
        case 8: "100M"
        case 9: "1G"
        default: "1e\(exponent)"
        }
    }

    static func escape(_ s: String) -> String {
        s.replacingCharacter("&", with: "&amp;").replacingCharacter("<", with: "&lt;")
    }
}

extension String {
    func replacingCharacter(_ a: String, with b: String) -> String {
        split(separator: Character(a), omittingEmptySubsequences: false).joined(separator: b)
    }
}
