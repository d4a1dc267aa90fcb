import Foundation

/// A seeded, reproducible random generator (SplitMix64) for randomized tests.
///
/// Every randomized test builds one from a seed and puts that seed in its failure messages,
/// so a failure can be replayed exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64
    public let seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in `range`.
    public mutating func double(_ range: ClosedRange<Double>) -> Double {
        Double.random(in: range, using: &self)
    }

    /// A uniform integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < p
    }
}

/// The seeds a randomized test runs over: a fixed list, plus one from the environment
/// variable `GEOFENCE_TEST_SEED` when set (to replay a failure printed by a test).
public func testSeeds(_ count: Int, base: UInt64 = 0x5EED) -> [UInt64] {
    if let text = getenvString("GEOFENCE_TEST_SEED"), let seed = UInt64(text) { return [seed] }
    return (0..<UInt64(count)).map { base &+ $0 &* 7919 }
}

func getenvString(_ name: String) -> String? { ProcessInfo.processInfo.environment[name] }
