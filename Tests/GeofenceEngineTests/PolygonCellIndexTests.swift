import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The classified cells of every polygon (``PolygonCellIndex``) against their twins: GEOS's
/// locator alone, and the run test of ``PolygonEdgeIndex`` (itself checked against GEOS).
@Suite("Polygon cell classification")
struct PolygonCellIndexTests {
    /// Points on the borders of the polygon's cells: every column and row border exactly as
    /// the grid computes it, one step either side, and the corners where they meet.
    static func cellBorderProbes(_ grid: PolygonGrid, _ rng: inout SplitMix64) -> [Coordinate] {
        var points: [Coordinate] = []
        func y() -> Double { rng.double(grid.minY...grid.maxY) }
        func x() -> Double { rng.double(grid.minX...grid.maxX) }
        for j in 0..<grid.kx {
            let border = grid.columnStart(j)
            for b in [border, border.nextUp, border.nextDown] {
                points.append(Coordinate(latitude: y(), longitude: b))
            }
        }
        for j in 0..<grid.ky {
            let border = grid.rowStart(j)
            for b in [border, border.nextUp, border.nextDown] {
                points.append(Coordinate(latitude: b, longitude: x()))
                points.append(Coordinate(latitude: b, longitude: grid.columnStart(rng.int(0...(grid.kx - 1)))))
            }
            #expect(j == 0 || (grid.row(border) == j && grid.row(border.nextDown) == j - 1), "row \(j) starts at \(border)")
        }
        for j in 1..<grid.kx {
            #expect(grid.column(grid.columnStart(j)) == j && grid.column(grid.columnStart(j).nextDown) == j - 1)
        }
        return points
    }

    /// A star-shaped polygon of `n` vertices around (lat, lon) (so always simple), radius in
    /// degrees, sometimes with a square hole.
    static func star(_ rng: inout SplitMix64, n: Int, lat: Double, lon: Double, radius: Double, hole: Bool) -> Fence.Shape {
        var ring: [Coordinate] = []
        for k in 0..<n {
            let angle = 2 * Double.pi * Double(k) / Double(n)
            let r = radius * rng.double(0.5...1)
            ring.append(Coordinate(latitude: lat + r * sin(angle), longitude: lon + r * 1.3 * cos(angle)))
        }
        var holes: [Ring] = []
        if hole {
            let h = radius * 0.2
            holes.append(Ring(closing: [
                Coordinate(latitude: lat - h, longitude: lon - h), Coordinate(latitude: lat + h, longitude: lon - h),
                Coordinate(latitude: lat + h, longitude: lon + h), Coordinate(latitude: lat - h, longitude: lon + h),
            ]))
        }
        return .polygon(MultiPolygon(polygons: [Polygon(exterior: Ring(closing: ring), holes: holes)]))
    }

    /// Polygons of every kind the tests know: the random city's, axis-aligned L shapes on a
    /// coarse grid (probes exactly on edges), stars of 5 to 3,000 vertices with equal
    /// latitudes and holes, and the antimeridian world's split MultiPolygons.
    static func polygons(seed: UInt64) -> [Fence] {
        var rng = SplitMix64(seed: seed)
        var world = SeededGenerator(seed: seed)
        var fences = RandomWorld.city.fences(count: 60, &world).filter { !$0.shape.isCircle }
        fences += RandomWorld.antimeridian.fences(count: 40, &world).filter { !$0.shape.isCircle }.map { var f = $0; f.geofenceID += "-am"; return f }
        fences += (0..<20).map { FastPathTwinTests.gridPolygon(&rng, id: "grid\($0)") }
        for (k, n) in [5, 7, 12, 40, 300, 3_000].enumerated() {
            let shape = star(&rng, n: n, lat: 40.7 + Double(k) * 0.01, lon: -73.9, radius: 0.003, hole: k % 2 == 0)
            fences.append(Fence(geofenceID: "star\(n)", shape: shape))
        }
        return fences
    }

    @Test("the cell test (with and without branches) equals GEOS wherever it decides, and the whole polygon test equals GEOS", arguments: [1, 2, 3] as [UInt64])
    func cellsEqualGEOS(seed: UInt64) throws {
        for seed in testSeeds(1, base: seed) {
            let set = try FenceSet(Self.polygons(seed: seed))
            let evaluator = try ContainmentEvaluator(fenceSet: set)
            var rng = SplitMix64(seed: seed)
            var decidedByCell = 0, gridded = 0, total = 0, crossed = 0, doubts = 0
            for slot in 0..<set.count {
                guard case .polygon(let shape) = set.shape(at: slot) else { continue }
                let position = Int(set.storage.storageIndex[slot])
                let low = evaluator.hot.records[2 * position], high = evaluator.hot.records[2 * position + 1]
                guard let grid = PolygonGrid(low, high) else { continue }
                gridded += 1
                var probes = Self.cellBorderProbes(grid, &rng)
                for ring in shape.allRings { probes += FastPathTwinTests.probes(ring, &rng) }
                for p in probes {
                    total += 1
                    let geos = try evaluator.coversByGEOS(slot: slot, latitude: p.latitude, longitude: p.longitude)
                    let cells = evaluator.hot.cells.test(low, high, x: p.longitude, y: p.latitude)
                    // The sweep's branch-free edge step answers as the edge step does, and its
                    // folded parity is the answer whenever it is not in doubt.
                    let hit = evaluator.hot.cells.cell(low, high, x: p.longitude, y: p.latitude)
                    let withoutBranches = evaluator.hot.cells.edgesWithoutBranches(hit, x: p.longitude, y: p.latitude)
                    #expect(withoutBranches == cells, "seed \(seed) \(set.geofenceID(at: slot)) at \(p): without branches \(withoutBranches), cells \(cells)")
                    if hit.from < hit.to {
                        crossed += 1
                        let bits = evaluator.hot.cells.edgeBits(hit, x: p.longitude, y: p.latitude)
                        if bits.doubt { doubts += 1 } else {
                            #expect(cells == (bits.odd ? .inside : .outside), "seed \(seed) \(set.geofenceID(at: slot)) at \(p): folded \(bits), cells \(cells)")
                        }
                    }
                    let runs = evaluator.hot.polygons.test(slot: position, x: p.longitude, y: p.latitude)
                    if cells != .undecided {
                        decidedByCell += 1
                        #expect((cells == .inside) == geos, "seed \(seed) \(set.geofenceID(at: slot)) at \(p): cells \(cells), GEOS \(geos)")
                    }
                    if runs != .undecided && cells != .undecided {
                        #expect(runs == cells, "seed \(seed) \(set.geofenceID(at: slot)) at \(p): runs \(runs), cells \(cells)")
                    }
                    #expect(try evaluator.covers(slot: slot, latitude: p.latitude, longitude: p.longitude) == geos)
                }
            }
            #expect(gridded == set.fences.filter { !$0.shape.isCircle }.count, "seed \(seed): every polygon has cells")
            #expect(decidedByCell > total / 2, "seed \(seed): \(decidedByCell) of \(total) decided by the cells")
            // Only probes on or within rounding of an edge, or at a vertex's latitude, are in
            // doubt: a third of the probes are placed there on purpose, the rest are not.
            #expect(doubts < crossed / 2, "seed \(seed): \(doubts) of \(crossed) crossed cells in doubt")
        }
    }

    /// A row border at latitude 0: stepping one unit in the last place from the computed
    /// border walked the subnormals (about 2⁶² steps, `geofence nearest` hung in its test).
    @Test("row and column starts are exact and found quickly when a border lies at 0")
    func startsAcrossZero() {
        let grid = PolygonGrid(minX: -1, minY: -1, maxX: 1, maxY: 1, kx: 2, ky: 2)
        let y = grid.rowStart(1), x = grid.columnStart(1)
        #expect(grid.row(y) == 1 && grid.row(y.nextDown) == 0, "row 1 starts at \(y)")
        #expect(grid.column(x) == 1 && grid.column(x.nextDown) == 0, "column 1 starts at \(x)")
        #expect(grid.rowStart(0) == -1 && grid.columnStart(0) == -1)
    }

    /// The difference-row fill against the row scan it replaced (``RowScanCells``), on every
    /// kind of polygon the tests know and on grids of every shape: 1 × 1 up to 40 × 40, the
    /// polygon's own grid, and grids so fine that the listed edges overflow.
    @Test("the fill equals the row-by-row scan, byte for byte, on random grids", arguments: [11, 12, 13] as [UInt64])
    func fillEqualsRowScan(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let set = try FenceSet(Self.polygons(seed: seed))
        let shapes = set.storage.shapes
        let scratch = PolygonCellIndex.Scratch()
        var compared = 0, overflowed = 0
        for p in 0..<set.count where shapes.partStarts[p + 1] > shapes.partStarts[p] {
            let rings = shapes.rings(position: p)
            var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
            for i in Int(shapes.vertexStarts[rings.lowerBound])..<Int(shapes.vertexStarts[rings.upperBound]) {
                minX = min(minX, shapes.vertices[2 * i]); maxX = max(maxX, shapes.vertices[2 * i])
                minY = min(minY, shapes.vertices[2 * i + 1]); maxY = max(maxY, shapes.vertices[2 * i + 1])
            }
            var sizes = [(1, 1), (rng.int(1...40), rng.int(1...40)), (rng.int(1...8), rng.int(20...64))]
            let vertexCount = Int(shapes.vertexStarts[rings.upperBound] - shapes.vertexStarts[rings.lowerBound])
            if vertexCount < 100 && rng.int(0...9) == 0 { sizes.append((256, 200)) }
            // One row, every edge in it: the lists overflow.
            if vertexCount >= 300 { sizes += [(256, 1), (1, 256)] }
            for (kx, ky) in sizes {
                let grid = PolygonGrid(minX: minX, minY: minY, maxX: maxX, maxY: maxY, kx: kx, ky: ky)
                let twin = RowScanCells.fill(grid, shapes: shapes, rings: rings)
                let filled = PolygonCellIndex.fill(grid, shapes: shapes, rings: rings, scratch: scratch)
                #expect(filled == (twin != nil), "seed \(seed), position \(p), \(kx) × \(ky): overflow differs")
                guard filled, let twin else { overflowed += 1; continue }
                let cells = Array(UnsafeBufferPointer(start: scratch.cells.base, count: scratch.cells.count))
                let listed = Array(UnsafeBufferPointer(start: scratch.listed.base, count: scratch.listed.count))
                #expect(cells == twin.cells, "seed \(seed), position \(p), \(kx) × \(ky): cells differ")
                #expect(listed == twin.listed, "seed \(seed), position \(p), \(kx) × \(ky): listed edges differ")
                compared += 1
            }
        }
        #expect(compared > 150 && overflowed > 0, "seed \(seed): \(compared) grids compared, \(overflowed) overflowed")
    }

    /// Row and column starts found from their estimate against the binary search alone, on
    /// random grids (tiny, huge, across 0, at the poles and the antimeridian).
    @Test("row and column starts from the estimate equal the binary search's")
    func startsFromEstimate() {
        var rng = SplitMix64(seed: 14)
        for _ in 0..<300 {
            let scale = [1e-7, 1e-3, 0.5, 30, 179][rng.int(0...4)]
            let latitudeScale = min(scale, 45)
            let minX = rng.double(-180...(180 - 2 * scale)), minY = rng.double(-90...(90 - 2 * latitudeScale))
            let grid = PolygonGrid(
                minX: minX, minY: minY, maxX: minX + rng.double(scale...(2 * scale)),
                maxY: minY + rng.double(latitudeScale...(2 * latitudeScale)),
                kx: rng.int(1...256), ky: rng.int(1...256))
            for r in 1..<grid.ky {
                #expect(grid.rowStart(r) == PolygonGrid.smallest(from: grid.minY, to: grid.maxY) { grid.row($0) >= r }, "row \(r) of \(grid)")
            }
            for c in 1..<grid.kx {
                #expect(grid.columnStart(c) == PolygonGrid.smallest(from: grid.minX, to: grid.maxX) { grid.column($0) >= c }, "column \(c) of \(grid)")
            }
        }
    }

    @Test("classifying on several threads gives the one-thread cells, byte for byte", arguments: [4, 5] as [UInt64])
    func threadsAgree(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        // Enough polygons for several ranges of 256 positions, circles among them (their records
        // stay as they are).
        var fences: [Fence] = []
        for k in 0..<700 {
            let lat = 40.7 + Double(k / 30) * 0.01, lon = -73.9 + Double(k % 30) * 0.01
            let shape = Self.star(&rng, n: rng.int(3...24), lat: lat, lon: lon, radius: 0.003, hole: k % 7 == 0)
            fences.append(Fence(geofenceID: "p\(k)", shape: shape))
        }
        for k in 0..<100 {
            let center = Coordinate(latitude: 40.65, longitude: -73.9 + Double(k) * 0.003)
            fences.append(Fence(geofenceID: "c\(k)", shape: .circle(center: center, radius: 150)))
        }
        let set = try FenceSet(fences)
        var circleRecords = [(SIMD4<Double>, SIMD4<Double>)](repeating: (.zero, .zero), count: set.count)
        for slot in 0..<set.count {
            circleRecords[Int(set.storage.storageIndex[slot])] =
                FenceSetBuilder.circleRecord(set.storage.attributes[slot], set.storage.enclosingCircles[slot])
        }
        let one = PolygonCellIndex(shapes: set.storage.shapes, circleRecords: circleRecords, threads: 1)
        for threads in [2, 3, 8] {
            let many = PolygonCellIndex(shapes: set.storage.shapes, circleRecords: circleRecords, threads: threads)
            #expect(Array(many.records.bytes) == Array(one.records.bytes), "seed \(seed), \(threads) threads: records differ")
            #expect(Array(many.cells.bytes) == Array(one.cells.bytes), "seed \(seed), \(threads) threads: cells differ")
            #expect(Array(many.edges.bytes) == Array(one.edges.bytes), "seed \(seed), \(threads) threads: edges differ")
        }
        // The set's own index (built on every core) is the same too.
        #expect(Array(set.storage.polygonCells.cells.bytes) == Array(one.cells.bytes), "seed \(seed)")
        #expect(one.cells.count > 700, "seed \(seed): the polygons have cells")
    }

    @Test("most points in a polygon's box are answered by their cell alone")
    func uniformCells() throws {
        var rng = SplitMix64(seed: 8)
        let fences = (0..<30).map { k in
            Fence(geofenceID: "s\(k)", shape: Self.star(&rng, n: rng.int(5...40), lat: 40.7, lon: -73.9 + Double(k) * 0.01, radius: 0.002, hole: k % 5 == 0))
        }
        let set = try FenceSet(fences)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        var byCell = 0, total = 0
        for slot in 0..<set.count {
            let position = Int(set.storage.storageIndex[slot])
            let low = evaluator.hot.records[2 * position], high = evaluator.hot.records[2 * position + 1]
            let grid = try #require(PolygonGrid(low, high))
            #expect(grid.kx * grid.ky >= 100, "\(set.geofenceID(at: slot)): \(grid.kx) × \(grid.ky) cells")
            for _ in 0..<400 {
                let x = rng.double(grid.minX...grid.maxX), y = rng.double(grid.minY...grid.maxY)
                let cx = grid.column(x), cy = grid.row(y)
                let cell = Int(high.w.bitPattern & 0xFFFF_FFFF) + cy * grid.kx + cx
                total += 1
                if set.storage.polygonCells.cells[cell] & 0x7FFF == set.storage.polygonCells.cells[cell + 1] & 0x7FFF { byCell += 1 }
            }
        }
        // About 4 / √128 of a box's cells meet the boundary: about 65 % answered alone.
        #expect(byCell * 100 >= total * 55, "\(byCell) of \(total) answered by the cell alone")
    }

    @Test("a polygon with more edges than a cell list can hold has no cells and is still answered exactly")
    func tooManyEdges() throws {
        var rng = SplitMix64(seed: 9)
        let big = Fence(geofenceID: "big", shape: Self.star(&rng, n: 40_000, lat: 10, lon: 10, radius: 0.05, hole: false))
        let set = try FenceSet([big, Fence(geofenceID: "small", shape: Self.star(&rng, n: 9, lat: 10, lon: 10.2, radius: 0.01, hole: true))])
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        let position = Int(set.storage.storageIndex[0])
        #expect(PolygonGrid(evaluator.hot.records[2 * position], evaluator.hot.records[2 * position + 1]) == nil)
        for _ in 0..<200 {
            let p = Coordinate(latitude: rng.double(9.94...10.06), longitude: rng.double(9.92...10.08))
            #expect(try evaluator.covers(slot: 0, latitude: p.latitude, longitude: p.longitude)
                == evaluator.coversByGEOS(slot: 0, latitude: p.latitude, longitude: p.longitude), "at \(p)")
        }
    }
}
