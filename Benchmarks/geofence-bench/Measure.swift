import GeofenceEngine
#if canImport(Glibc)
import Glibc
#endif

/// Wall-clock and memory readings for the benchmark tables.
enum Measure {
    /// Seconds from a monotonic clock.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Seconds `body` took.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return now() - start
    }

    /// Peak resident set size of this process so far, in MiB.
    static func peakRSSMiB() -> Double {
        Double(BatchEvaluator.peakResidentBytes()) / 1_048_576
    }

    /// One-minute load average (the machines are shared: a high value explains slow runs).
    static func loadAverage() -> Double {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) > 0 ? loads[0] : .nan
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        if s.isEmpty { return .nan }
        return s.count % 2 == 1 ? s[s.count / 2] : 0.5 * (s[s.count / 2 - 1] + s[s.count / 2])
    }
}
