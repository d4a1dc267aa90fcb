import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The two fast paths of point containment against their obvious twins: the certified Swift
/// polygon test against GEOS's locator alone, and the grid directory against the R-tree.
@Suite("Containment fast paths")
struct FastPathTwinTests {
    /// Points that stress the boundary: exact vertices, points on axis-aligned edges, edge
    /// midpoints (within rounding of the edge), and random points around the polygon.
    static func probes(_ ring: Ring, _ rng: inout SplitMix64) -> [Coordinate] {
        var points: [Coordinate] = []
        let box = ring.boundingBox
        for i in 0..<(ring.count - 1) {
            let a = ring[i], b = ring[i + 1]
            points.append(a)
            points.append(Coordinate(latitude: (a.latitude + b.latitude) / 2, longitude: (a.longitude + b.longitude) / 2))
            let t = rng.double(0...1)
            points.append(Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: a.longitude + (b.longitude - a.longitude) * t))
            // Same latitude as a vertex: the ray passes through it.
            points.append(Coordinate(latitude: a.latitude, longitude: rng.double(box.minLongitude...box.maxLongitude)))
        }
        for _ in 0..<60 {
            points.append(Coordinate(
                latitude: rng.double((box.minLatitude - 1e-4)...(box.maxLatitude + 1e-4)),
                longitude: rng.double((box.minLongitude - 1e-4)...(box.maxLongitude + 1e-4))))
        }
        return points
    }

    /// Polygons on a coarse grid of coordinates (0.001°): many vertices share latitudes,
    /// edges are horizontal or vertical, and probes land exactly on edges and vertices.
    static func gridPolygon(_ rng: inout SplitMix64, id: String) -> Fence {
        let x0 = Double(rng.int(0...100)) * 0.001, y0 = Double(rng.int(0...100)) * 0.001
        let w = Double(rng.int(2...8)) * 0.001, h = Double(rng.int(2...8)) * 0.001
        // An L shape, with a square hole sometimes.
        let outer = [x0, y0, x0 + w, y0, x0 + w, y0 + h / 2, x0 + w / 2, y0 + h / 2, x0 + w / 2, y0 + h, x0, y0 + h, x0, y0]
        var holes: [Ring] = []
        if rng.chance(0.5) {
            let hx = x0 + 0.0002, hy = y0 + 0.0002
            holes.append(Ring(positions: [hx, hy, hx, hy + 0.0004, hx + 0.0004, hy + 0.0004, hx + 0.0004, hy, hx, hy]))
        }
        return Fence(id: id, shape: .polygon(MultiPolygon(polygons: [Polygon(exterior: Ring(positions: outer), holes: holes)])))
    }

    @Test("certified polygon test equals GEOS's locator", arguments: [1, 2, 3] as [UInt64])
    func polygonTestEqualsGEOS(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var fences: [Fence] = (0..<40).map { Self.gridPolygon(&rng, id: "grid\($0)") }
        let world = RandomWorld.city
        var worldRng = SeededGenerator(seed: seed)
        fences += world.fences(count: 80, &worldRng).filter { !$0.shape.isCircle }
        let set = try FenceSet(fences)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        var undecided = 0, total = 0
        for (slot, fence) in set.fences.enumerated() {
            guard case .polygon(let shape) = fence.shape else { continue }
            for ring in shape.allRings {
                for p in Self.probes(ring, &rng) {
                    total += 1
                    let geos = try evaluator.coversByGEOS(slot: slot, latitude: p.latitude, longitude: p.longitude)
                    let fast = try evaluator.covers(slot: slot, latitude: p.latitude, longitude: p.longitude)
                    #expect(fast == geos, "seed \(seed) fence \(fence.id) at \(p): fast \(fast), GEOS \(geos)")
                    if set.storage.polygonEdges.test(slot: Int(set.storage.storageIndex.pointer[slot]), x: p.longitude, y: p.latitude) == .undecided { undecided += 1 }
                }
            }
        }
        // The fast path decides most probes itself (only near-edge ones go to GEOS).
        #expect(undecided < total / 2, "seed \(seed): \(undecided) of \(total) undecided")
    }

    @Test("certified polygon test equals GEOS on the real neighbourhoods")
    func realPolygons() throws {
        let set = try FenceSet.load(path: CLIPaths.data("austin/neighborhoods.geojson"))
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        var rng = SplitMix64(seed: 77)
        for (slot, fence) in set.fences.enumerated() {
            guard case .polygon(let shape) = fence.shape else { continue }
            for p in Self.probes(shape.polygons[0].exterior, &rng).prefix(400) {
                let geos = try evaluator.coversByGEOS(slot: slot, latitude: p.latitude, longitude: p.longitude)
                #expect(try evaluator.covers(slot: slot, latitude: p.latitude, longitude: p.longitude) == geos, "\(fence.id) at \(p)")
            }
        }
    }

    @Test("grid directory equals the R-tree", arguments: [5, 6, 7] as [UInt64])
    func directoryEqualsTree(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            for size in [1, 2, 17, 300, 2_000] {
                var rng = SeededGenerator(seed: seed &* 131 &+ UInt64(size))
                var fences = world.fences(count: size, &rng)
                // A few huge fences exercise the directory's large-entry list.
                if size >= 300 {
                    for k in 0..<3 {
                        fences.append(Fence(id: "huge\(k)", shape: .circle(center: world.point(&rng), radius: world.spread * 2)))
                    }
                }
                let set = try FenceSet(fences)
                guard set.directory.isEnabled else { continue }
                var fromTree: [Int32] = [], fromGrid: [Int32] = []
                let (entryBoxes, entrySlots) = set.entries
                for p in world.queryPoints(count: 300, fences: fences, &rng) {
                    fromTree.removeAll()
                    fromGrid.removeAll()
                    set.index.search(latitude: p.latitude, longitude: p.longitude, into: &fromTree)
                    set.directory.search(latitude: p.latitude, longitude: p.longitude, into: &fromGrid)
                    // The tree's Float boxes may add candidates from rounding slack; every fence
                    // whose true box holds the point must come from both, and the grid may only
                    // add what the tree has.
                    let exact = Set((0..<entryBoxes.count).filter {
                        entryBoxes[$0].contains(latitude: p.latitude, longitude: p.longitude)
                    }.map { entrySlots[$0] })
                    #expect(fromGrid == Array(Set(fromGrid)).sorted(), "seed \(seed) \(name): grid answer not sorted and unique")
                    #expect(exact.isSubset(of: Set(fromGrid)), "seed \(seed) \(name) size \(size) at \(p): grid \(fromGrid) misses \(exact.subtracting(fromGrid))")
                    #expect(Set(fromGrid).isSubset(of: Set(fromTree)), "seed \(seed) \(name) size \(size) at \(p)")
                }
            }
        }
    }
}

/// Paths of the committed data.
enum CLIPaths {
    static func data(_ relative: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("data").appendingPathComponent(relative).path
    }
}

import Foundation

@Suite("Batch containment")
struct BatchContainmentTests {
    @Test("batch answers equal one query per point, sorted by cell or not", arguments: [61, 62] as [UInt64])
    func batchEqualsPerPoint(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            var rng = SeededGenerator(seed: seed)
            let fences = world.fences(count: 300, &rng)
            let set = try FenceSet(fences)
            let evaluator = try ContainmentEvaluator(fenceSet: set)
            var points = world.queryPoints(count: 2_000, fences: fences, &rng).flatMap { [$0.latitude, $0.longitude] }
            points += [.nan, 0, 95, 0]  // invalid points answer nothing
            var expected: [[Int32]] = []
            var buffer: [Int32] = []
            for k in 0..<(points.count / 2) {
                try evaluator.containing(latitude: points[2 * k], longitude: points[2 * k + 1], level: nil, into: &buffer)
                expected.append(buffer)
            }
            for sorted in [false, true] {
                var answers = ContainmentAnswers()
                try points.withUnsafeBufferPointer { try evaluator.containing(coordinates: $0, sortByCell: sorted, into: &answers) }
                #expect(answers.count == expected.count)
                for k in 0..<expected.count where Array(answers[k]) != expected[k] {
                    Issue.record("seed \(seed) \(name) sorted \(sorted): point \(k) got \(Array(answers[k])), expected \(expected[k])")
                    break
                }
            }
        }
    }
}

@Suite("Real polygons of 15 cities")
struct MultiCityPolygonTests {
    /// The 1,969 neighbourhoods: 16 invalid ones are reported (and repaired on request); on
    /// the rest the certified test equals GEOS's locator, including the boroughs of over
    /// 2,048 edges that go to GEOS directly.
    @Test("validation finds the 16 invalid polygons; containment equals GEOS")
    func multiCity() throws {
        let path = CLIPaths.data("polygons/neighborhoods_multicity.geojson")
        let report = try FenceSet.inspect(path: path, repair: false)
        #expect(report.featureCount == 1_969 && report.problems.count == 16)
        #expect(report.problems.allSatisfy { $0.reason.contains("Self-intersection") })
        let set = try FenceSet.load(path: path, repair: true)
        #expect(set.count == 1_969 && set.repairedCount == 16)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        var rng = SplitMix64(seed: 2026)
        var large = 0
        for (slot, fence) in set.fences.enumerated() {
            guard case .polygon(let shape) = fence.shape, slot % 7 == 0 || shape.vertexCount > 2_048 else { continue }
            if shape.vertexCount > 2_048 { large += 1 }
            for p in FastPathTwinTests.probes(shape.polygons[0].exterior, &rng).prefix(120) {
                let geos = try evaluator.coversByGEOS(slot: slot, latitude: p.latitude, longitude: p.longitude)
                #expect(try evaluator.covers(slot: slot, latitude: p.latitude, longitude: p.longitude) == geos, "\(fence.id) at \(p)")
            }
        }
        #expect(large >= 5, "the corpus has polygons of more than 2,048 vertices")
    }
}
