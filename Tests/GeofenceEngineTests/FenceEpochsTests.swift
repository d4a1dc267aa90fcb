import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The batch's fence epochs: fence ranks across sets by a merge, and the check that lets a
/// device's events be written segment by segment, each against its slow twin.
@Suite("Fence epochs: ranks and event order")
struct FenceEpochsTests {
    /// Sets whose ids overlap: shared ids, prefixes of each other, multi-byte UTF-8.
    static func sets(_ rng: inout SplitMix64, count: Int) throws -> [FenceSet] {
        let pool = (0..<40).map { k in ["a", "ab", "b\(k)", "é\(k % 7)", "z", "Z\(k)", "a\(k)b", "\u{1F600}\(k % 3)"][k % 8] + (k % 3 == 0 ? "" : "\(k)") }
        return try (0..<count).map { _ in
            let ids = Set(pool.filter { _ in rng.chance(0.6) })
            return try FenceSet(ids.map { Fence(geofenceID: $0, shape: .circle(center: Coordinate(latitude: 1, longitude: 2), radius: 10)) })
        }
    }

    @Test("ranks by merging the sets' id orders equal ranks by sorting every id", arguments: testSeeds(4))
    func ranksMerge(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        for count in 2...4 {
            let sets = try Self.sets(&rng, count: count)
            let (ranks, starts) = FenceEpochs.ranks(of: sets)
            #expect(ranks == FenceEpochs.ranksBySorting(sets), "seed \(seed), \(count) sets")
            #expect(starts == sets.indices.map { k in sets[..<k].map(\.count).reduce(0, +) })
            // Equal ranks exactly for equal ids.
            for a in sets.indices {
                for b in sets.indices {
                    for s in 0..<sets[a].count {
                        for t in 0..<sets[b].count {
                            #expect((ranks[starts[a] + s] == ranks[starts[b] + t]) == (sets[a].geofenceID(at: s) == sets[b].geofenceID(at: t)))
                        }
                    }
                }
            }
        }
    }

    @Test("the in-order check agrees with sorting by (time, rank) over seeded events and segments", arguments: testSeeds(4))
    func inOrderTwin(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let sets = try Self.sets(&rng, count: 3)
        let (ranks, starts) = FenceEpochs.ranks(of: sets)
        var orderedSeen = 0
        for _ in 0..<400 {
            // Segments: epochs 0, 1, 2 in order, some empty.
            let count = rng.int(0...8)
            var segments: [(start: Int, epoch: Int)] = [(0, 0)]
            var cut = 0
            for epoch in 1...2 {
                cut = min(count, cut + rng.int(0...4))
                segments.append((cut, epoch))
            }
            var events: [GeofenceEvent] = []
            var time: Int64 = 0
            for i in 0..<count {
                let epoch = segments.last { $0.start <= i }!.epoch
                if rng.chance(0.2) { time -= 1 } else if rng.chance(0.5) { time += 1 }
                events.append(GeofenceEvent(
                    type: .entrance, timestamp: Timestamp(milliseconds: time), slot: Int32(rng.int(0...(sets[epoch].count - 1))),
                    latitude: 1, longitude: 2, source: nil))
            }
            // The twin: each event's key, read with the epoch of the segment it falls in.
            let keys = events.indices.map { i -> (Int64, Int32) in
                let epoch = segments.last { $0.start <= i }!.epoch
                return (events[i].timestamp.milliseconds, ranks[starts[epoch] + Int(events[i].slot)])
            }
            let expected = zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 }
            let got = events.withUnsafeBufferPointer { BatchWorker.inOrder($0, segments: segments, ranks: ranks, rankStarts: starts) }
            #expect(got == expected, "seed \(seed): \(keys), segments \(segments)")
            if expected { orderedSeen += 1 }
        }
        #expect(orderedSeen > 20 && orderedSeen < 380)
    }
}
