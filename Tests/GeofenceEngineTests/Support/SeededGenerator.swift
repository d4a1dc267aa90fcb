import Foundation
import GeofenceTestSupport

/// The index tests' name for the shared seeded generator.
typealias SeededGenerator = SplitMix64

extension SplitMix64 {
    /// Log-uniform in [lo, hi].
    mutating func logUniform(_ lo: Double, _ hi: Double) -> Double {
        exp(double(log(lo)...log(hi)))
    }
}
