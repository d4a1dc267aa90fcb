import GeofenceEngine

/// A one-line progress bar on standard error: rows, rows/s, elapsed, ETA.
///
/// Draws only when standard error is a terminal and `--quiet` is off, at most ten times a
/// second; the ETA comes from bytes read against the file size.
final class ProgressBar {
    private let enabled: Bool
    private let totalBytes: Int
    private let start: Double
    private var lastDraw = 0.0
    private var drew = false

    init(totalBytes: Int, quiet: Bool) {
        enabled = !quiet && Platform.isTerminal(2)
        self.totalBytes = max(1, totalBytes)
        start = Self.now()
    }

    /// Redraws if a tenth of a second has passed.
    func update(rows: Int, bytes: Int) {
        guard enabled else { return }
        let t = Self.now()
        guard t - lastDraw >= 0.1 else { return }
        lastDraw = t
        drew = true
        let elapsed = t - start
        let fraction = min(1, Double(bytes) / Double(totalBytes))
        let width = 24
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let rate = elapsed > 0 ? Double(rows) / elapsed : 0
        let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
        FileHandleText.standardError(
            "\r\(bar) \(Self.percent(fraction)) \(Self.count(rows)) rows  \(Self.count(Int(rate)))/s  \(Self.clock(elapsed)) elapsed  ETA \(Self.clock(eta))\u{1B}[K")
    }

    /// Clears the line so the summary starts clean.
    func finish() {
        if enabled && drew { FileHandleText.standardError("\r\u{1B}[K") }
    }

    static func now() -> Double {
        Platform.monotonicSeconds()
    }

    static func percent(_ f: Double) -> String { "\(Int((f * 100).rounded(.down)))%" }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(s / 60 % 60)m" : "\(s / 60)m\(String(format2: s % 60))s"
    }

    static func count(_ n: Int) -> String {
        n >= 10_000_000 ? "\(n / 1_000_000)M" : n >= 10_000 ? "\(n / 1000)k" : "\(n)"
    }
}

extension String {
    /// Two digits, zero-padded.
    init(format2 value: Int) { self = value < 10 ? "0\(value)" : "\(value)" }
}
