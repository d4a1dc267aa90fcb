/// Timing and table formatting for the `index` and `replay` benchmark cases.
enum RTreeBench {
    /// Monotonic clock, seconds.
    static func now() -> Double { Measure.now() }

    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        if digits == 0 { return "\(Int(value.rounded()))" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = "\(rounded)"
        if text.contains("e") { return text }
        if !text.contains(".") { text += "." }
        let decimals = text.split(separator: ".", omittingEmptySubsequences: false)[1].count
        return text + String(repeating: "0", count: Swift.max(0, digits - decimals))
    }

    /// A rate in engineering style: 1.23e6 → "1.23 M".
    static func rate(_ perSecond: Double) -> String {
        if perSecond >= 1e6 { return fixed(perSecond / 1e6, 2) + " M" }
        if perSecond >= 1e3 { return fixed(perSecond / 1e3, 1) + " k" }
        return fixed(perSecond, 1)
    }

    /// A plain text table with right-aligned columns.
    static func table(header: [String], rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = Swift.max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { String(repeating: " ", count: widths[$0.offset] - $0.element.count) + $0.element }
                .joined(separator: "  ")
        }
        return ([line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")] + rows.map(line))
            .joined(separator: "\n")
    }
}
