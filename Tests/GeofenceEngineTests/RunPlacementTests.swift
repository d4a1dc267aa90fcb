import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The sweep's placement of runs in input order against a stable sort by fix.
@Suite("Run placement")
struct RunPlacementTests {
    /// Random located fixes in a random order, each with a random run of pairs (none for
    /// some, long ones for a few); the pairs placed in input order equal the pairs sorted
    /// stably by fix index.
    @Test("runs placed in input order equal a stable sort", arguments: testSeeds(3, base: 97))
    func placementEqualsSort(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let scratch = BatchScratch(maximumCandidates: 8)
        for round in 0..<40 {
            let n = rng.int(1...3_000)
            // The located fixes, in a shuffled (tile) order.
            var located = (0..<n).filter { _ in rng.chance(0.7) }
            located.shuffle(using: &rng)
            let m = located.count
            scratch.reserve(n)
            var pairs: [UInt64] = []
            for (q, i) in located.enumerated() {
                let c = rng.chance(0.3) ? 0 : rng.int(1...(rng.chance(0.05) ? 40 : 6))
                scratch.runs[q] = Int32(c)
                scratch.indexes[q] = Int32(i)
                for _ in 0..<c { pairs.append(UInt64(i) << 32 | UInt64(rng.int(0...1_000_000))) }
            }
            let expected = pairs.enumerated().sorted { ($0.element >> 32, $0.offset) < ($1.element >> 32, $1.offset) }.map(\.element)
            scratch.reservePairs(max(1, pairs.count), keeping: 0)
            scratch.pairs.update(from: pairs, count: pairs.count)
            ContainmentEvaluator.placeRuns(count: pairs.count, located: m, fixes: n, indexes: scratch.indexes, scratch: scratch)
            let placed = Array(UnsafeBufferPointer(start: scratch.pairs, count: pairs.count))
            #expect(placed == expected, "seed \(seed) round \(round): \(n) fixes, \(m) located, \(pairs.count) pairs")
        }
    }
}
