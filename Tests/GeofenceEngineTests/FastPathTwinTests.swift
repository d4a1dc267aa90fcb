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
        return Fence(geofenceID: id, shape: .polygon(MultiPolygon(polygons: [Polygon(exterior: Ring(positions: outer), holes: holes)])))
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
                    #expect(fast == geos, "seed \(seed) fence \(fence.geofenceID) at \(p): fast \(fast), GEOS \(geos)")
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
                #expect(try evaluator.covers(slot: slot, latitude: p.latitude, longitude: p.longitude) == geos, "\(fence.geofenceID) at \(p)")
            }
        }
    }

    @Test("grid directory equals the R-tree", arguments: sized(full: [5, 6, 7], quick: [5]) as [UInt64])
    func directoryEqualsTree(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            for size in [1, 2, 17, 300, 2_000] {
                var rng = SeededGenerator(seed: seed &* 131 &+ UInt64(size))
                var fences = world.fences(count: size, &rng)
                // A few huge fences exercise the directory's large-entry list.
                if size >= 300 {
                    for k in 0..<3 {
                        fences.append(Fence(geofenceID: "huge\(k)", shape: .circle(center: world.point(&rng), radius: world.spread * 2)))
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
    @Test("batch pairs equal one query per fix, in input or tile order, with and without levels", arguments: testSeeds(sized(full: 2, quick: 1), base: 61))
    func batchEqualsPerFix(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            var rng = SeededGenerator(seed: seed)
            let fences = world.fences(count: 300, &rng)
            let set = try FenceSet(fences)
            let evaluator = try ContainmentEvaluator(fenceSet: set)
            var points = world.queryPoints(count: sized(full: 5_000, quick: 1_500), fences: fences, &rng)
            // Invalid fixes answer nothing; repeats of one fix answer alike.
            points += [Coordinate(latitude: .nan, longitude: 0), Coordinate(latitude: 95, longitude: 0), points[0], points[0]]
            let latitudes = points.map(\.latitude), longitudes = points.map(\.longitude)
            let levels = points.map { _ in rng.chance(0.5) ? Int.min : rng.int(0...2) }
            for withLevels in [false, true] {
                var expected: [(Int32, Int32)] = []
                var buffer: [Int32] = []
                for k in points.indices {
                    let level = withLevels && levels[k] != Int.min ? levels[k] : nil
                    try evaluator.containing(latitude: latitudes[k], longitude: longitudes[k], level: level, into: &buffer)
                    expected += buffer.map { (Int32(k), $0) }
                }
                for order in [ContainmentPairs.Order.input, .tiles, .automatic] {
                    var pairs = ContainmentPairs()
                    try evaluator.containing(
                        latitudes: latitudes, longitudes: longitudes, levels: withLevels ? levels : nil, order: order, into: &pairs)
                    let got = (0..<pairs.count).map { (pairs.fixes[$0], pairs.slots[$0]) }
                    #expect(got.count == expected.count && zip(got, expected).allSatisfy { $0 == $1 },
                            "seed \(seed) \(name) order \(order) levels \(withLevels): \(got.count) pairs, expected \(expected.count)")
                    // A second call into the same pairs gives the same answer.
                    try evaluator.containing(
                        latitudes: latitudes, longitudes: longitudes, levels: withLevels ? levels : nil, order: order, into: &pairs)
                    #expect(pairs.count == expected.count)
                }
            }
        }
    }

    /// The tile pass with tiles down to single cells (so the fixes are thoroughly reordered)
    /// and fences too wide for the directory's cells (its `large` list, which holds fixes in
    /// empty cells too), against the slow twin: the scan, fix by fix, in input order.
    @Test("tile order, with one-cell tiles and fences wider than the cells, equals the scan", arguments: testSeeds(sized(full: 2, quick: 1), base: 63))
    func tilesAndWideFencesEqualScan(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            var rng = SeededGenerator(seed: seed)
            let small = world.fences(count: 200, &rng)
            var points = world.queryPoints(count: 1_500, fences: small, &rng)
            points += [Coordinate(latitude: .nan, longitude: 0), Coordinate(latitude: 95, longitude: 0), points[0], points[0]]
            let wide = [
                Fence(geofenceID: "wide-0", shape: .circle(center: world.center, radius: world.spread * 0.6)),
                Fence(geofenceID: "wide-1", shape: .circle(center: points[1], radius: world.spread * 0.4)),
            ]
            let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(small + wide))
            let directory = evaluator.hot.directory
            // In the city the wide fences span too many cells (elsewhere the grid's cells are wider).
            #expect(evaluator.hot.directoryEnabled && (name != "city" || directory.largeCount > 0), "seed \(seed) \(name): no large entries")
            let latitudes = points.map(\.latitude), longitudes = points.map(\.longitude)
            var expected: [UInt64] = []
            for (k, p) in points.enumerated() {
                let scan = try evaluator.containingByScan(latitude: p.latitude, longitude: p.longitude, level: nil)
                expected += scan.map { UInt64(k) << 32 | UInt64($0) }
            }
            let one = ContainmentEvaluator.TileLayout(directory: directory, hotBytes: evaluator.fenceSet.hotBytes, tileBytes: 1)
            #expect(one.count == directory.columns * directory.rows + 1, "seed \(seed) \(name): one tile per cell")
            // Few fixes: squares of cells, so the tiles' counts stay below the fixes' work.
            let cells = directory.columns * directory.rows
            let few = ContainmentEvaluator.TileLayout(directory: directory, hotBytes: evaluator.fenceSet.hotBytes, tileBytes: 1, fixes: 8)
            #expect(cells <= 32 || (few.shift > 0 && few.count < one.count), "seed \(seed) \(name): \(few.count) tiles for 8 fixes")
            for tileBytes in [1, 4_096, 256 << 10, ContainmentEvaluator.tileBytes] {
                let scratch = evaluator.batchScratch()
                let found = try latitudes.withUnsafeBufferPointer { lat in
                    try longitudes.withUnsafeBufferPointer { lon in
                        try evaluator.containingInTileOrder(
                            lat.baseAddress!, lon.baseAddress!, nil, count: points.count, options: ContainmentOptions(),
                            scratch: scratch, tileBytes: tileBytes)
                    }
                }
                let same = Array(UnsafeBufferPointer(start: scratch.pairs, count: found)) == expected
                #expect(same, "seed \(seed) \(name) tile bytes \(tileBytes): \(found) pairs, expected \(expected.count)")
            }
            var pairs = ContainmentPairs()
            try evaluator.containing(latitudes: latitudes, longitudes: longitudes, order: .input, into: &pairs)
            let got = (0..<pairs.count).map { UInt64(UInt32(bitPattern: pairs.fixes[$0])) << 32 | UInt64(UInt32(bitPattern: pairs.slots[$0])) }
            let same = got == expected
            #expect(same, "seed \(seed) \(name) input order: \(got.count) pairs, expected \(expected.count)")
        }
    }

    @Test("an empty batch, and a batch on a set without a grid directory")
    func edges() throws {
        let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet([]))
        var pairs = ContainmentPairs()
        try evaluator.containing(latitudes: [], longitudes: [], into: &pairs)
        #expect(pairs.count == 0)
        try evaluator.containing(latitudes: [1], longitudes: [2], order: .tiles, into: &pairs)
        #expect(pairs.count == 0)
        let one = try ContainmentEvaluator(fenceSet: try FenceSet([
            Fence(geofenceID: "a", shape: .circle(center: Coordinate(latitude: 1, longitude: 2), radius: 100)),
        ]))
        try one.containing(latitudes: [1, 5, 1], longitudes: [2, 5, 2], order: .tiles, into: &pairs)
        #expect(pairs.fixes == [0, 2] && pairs.slots == [0, 0])
    }
}
