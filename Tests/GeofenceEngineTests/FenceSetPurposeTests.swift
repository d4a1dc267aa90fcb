import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// A set loaded from GeoJSON for containment alone (``FenceSet/Purpose/containment``, what
/// `geofence contains` loads) against the same file loaded for everything: the same pairs,
/// without the parts containment never reads.
@Suite("Fence set purpose")
struct FenceSetPurposeTests {
    /// `fences` as a GeoJSON FeatureCollection, ids `f0`, `f1`, ….
    static func featureCollection(_ fences: [Fence]) -> String {
        let features = fences.enumerated().map { k, fence -> String in
            var properties = "{}"
            if case .circle(_, let radius) = fence.shape { properties = #"{"radius":\#(radius)}"# }
            let geometry = JSONWriter.string(GeoJSONFenceEncoder.geometry(fence.shape))
            return #"{"type":"Feature","id":"f\#(k)","properties":\#(properties),"geometry":\#(geometry)}"#
        }
        return #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    }

    /// Both loads of `fences`, through a file.
    static func loads(_ fences: [Fence]) throws -> (full: FenceSet, containment: FenceSet) {
        try TestFolders.with("purpose") { folder in
            let path = folder.appendingPathComponent("fences.geojson").path
            try featureCollection(fences).write(toFile: path, atomically: true, encoding: .utf8)
            return (
                try FenceSet.load(path: path, repair: false, verification: .full, purpose: .everything),
                try FenceSet.load(path: path, repair: false, verification: .full, purpose: .containment))
        }
    }

    /// Every pair of the batch query over `points`, as (fix, slot) numbers.
    static func pairs(_ set: FenceSet, _ points: [Coordinate]) throws -> [UInt64] {
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        var pairs = ContainmentPairs()
        try evaluator.containing(latitudes: points.map(\.latitude), longitudes: points.map(\.longitude), into: &pairs)
        return (0..<pairs.count).map { UInt64(pairs.fixes[$0]) << 32 | UInt64(UInt32(pairs.slots[$0])) }
    }

    @Test("the same pairs, one fix at a time and in batches; no enclosing circles, fragments or tree", arguments: testSeeds(sized(full: 2, quick: 1), base: 91))
    func samePairs(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            var rng = SeededGenerator(seed: seed)
            let fences = world.fences(count: 300, &rng)
            let points = world.queryPoints(count: 6_000, fences: fences, &rng)
            let (full, containment) = try Self.loads(fences)
            let expected = try Self.pairs(full, points)
            #expect(!expected.isEmpty, "seed \(seed) \(name): some fix is in some fence")
            #expect(try Self.pairs(containment, points) == expected, "seed \(seed) \(name): batch pairs")
            let a = try ContainmentEvaluator(fenceSet: full), b = try ContainmentEvaluator(fenceSet: containment)
            var x: [Int32] = [], y: [Int32] = []
            for p in points.prefix(1_000) {
                try a.containing(latitude: p.latitude, longitude: p.longitude, level: nil, into: &x)
                try b.containing(latitude: p.latitude, longitude: p.longitude, level: nil, into: &y)
                #expect(x == y, "seed \(seed) \(name): \(p)")
            }
            // What was left out, and only that.
            let polygons = (0..<full.count).filter { !full.isCircle(at: $0) }
            #expect(name != "city" || !polygons.isEmpty, "seed \(seed): the city has polygons")
            #expect(polygons.allSatisfy { full.storage.enclosingCircles[$0].z > 0 }, "seed \(seed) \(name)")
            #expect(polygons.allSatisfy { containment.storage.enclosingCircles[$0].z == 0 }, "seed \(seed) \(name): circles skipped")
            #expect(containment.storage.eventFragments.bytes.count == 0 && full.storage.eventFragments.bytes.count > 0)
            #expect(containment.storage.directory.isEnabled && containment.storage.index.count == 0 && full.storage.index.count > 0)
            #expect((0..<full.count).allSatisfy { full.geofenceID(at: $0) == containment.geofenceID(at: $0) })
        }
    }

    @Test("an empty set (no grid directory): the tree path answers, with nothing")
    func emptySet() throws {
        let (full, containment) = try Self.loads([])
        #expect(!containment.storage.directory.isEnabled && containment.count == 0)
        let point = [Coordinate(latitude: 1, longitude: 2)]
        #expect(try Self.pairs(containment, point).isEmpty && Self.pairs(full, point).isEmpty)
        var slots: [Int32] = [5]
        try ContainmentEvaluator(fenceSet: containment).containing(latitude: 1, longitude: 2, level: nil, into: &slots)
        #expect(slots.isEmpty)
    }
}
