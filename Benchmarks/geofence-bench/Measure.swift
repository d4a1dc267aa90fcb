import GeofenceEngine
/// Wall-clock and memory readings for the benchmark tables.
enum Measure {
    /// Seconds from a monotonic clock.
    static func now() -> Double {
        Platform.monotonicSeconds()
    }

    /// Seconds `body` took.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return now() - start
    }

    /// Peak resident set size of this process so far, in MiB.
    static func peakRSSMiB() -> Double {
        Double(Platform.peakResidentBytes()) / 1_048_576
    }

    /// One-minute load average (the machines are shared: a high value explains slow runs).
    static func loadAverage() -> Double {
        Platform.loadAverage()
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        if s.isEmpty { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : 0.5 * (s[s.count / 2 - 1] + s[s.count / 2])
    }
}
