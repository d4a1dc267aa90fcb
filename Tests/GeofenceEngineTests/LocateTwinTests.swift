import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The batch's first pass (`CellDirectory.View.locate`) and the per-fix query's first look
/// (`PointCoverage.candidateCell`), both two coordinates at once and without a branch on the
/// grid's edges, against their obvious twin: `PointCoverage.fine` and `isReached`, point by point.
@Suite("Locate")
struct LocateTwinTests {
    /// The twin: the fixes whose fine cell some box reaches (every fix inside the grid when
    /// there are large entries), with their fine cells.
    static func twin(_ view: CellDirectory.View, _ points: [Coordinate]) -> [(index: Int32, fine: UInt64)] {
        let coverage = PointCoverage(view)
        var out: [(Int32, UInt64)] = []
        for (i, p) in points.enumerated() {
            guard let f = coverage.fine(latitude: p.latitude, longitude: p.longitude) else { continue }
            guard view.largeCount > 0 || coverage.isReached(f) else { continue }
            out.append((Int32(i), UInt64(f.column) | UInt64(f.row) << 32))
        }
        return out
    }

    /// Random points inside and around the grid, on its edges and its cells' edges, and not
    /// numbers, in worlds with and without large entries (a fence too wide for the cells).
    @Test("locate and candidateCell give the fixes and cells the coverage gives, point by point", arguments: testSeeds(3, base: 91))
    func locateEqualsCoverage(seed: UInt64) throws {
        for (name, base) in IndexedContainmentTests.worlds {
            var world = base
            world.spread = base.spread / 3
            for wide in [false, true] {
                var rng = SeededGenerator(seed: seed)
                var fences = world.fences(count: 300, &rng)
                if wide { fences.append(Fence(geofenceID: "wide", shape: .circle(center: world.center, radius: world.spread * 4))) }
                let set = try FenceSet(fences)
                let view = set.directory.view
                #expect(set.directory.isEnabled, "seed \(seed) \(name): no directory")
                // In the city the wide fence is a large entry (the antimeridian's and the pole's
                // grids span the globe, so it fits their cells).
                if name == "city" || !wide {
                    #expect((view.largeCount > 0) == wide, "seed \(seed) \(name) wide \(wide): \(view.largeCount) large entries")
                }
                var points = world.queryPoints(count: 4_000, fences: fences, &rng)
                // The grid's corners and edges, its cells' edges, just outside, and not numbers.
                let xs = [view.minLongitude, view.maxLongitude, view.minLongitude.nextDown, view.maxLongitude.nextUp]
                let ys = [view.minLatitude, view.maxLatitude, view.minLatitude.nextDown, view.maxLatitude.nextUp]
                for x in xs { for y in ys { points.append(Coordinate(latitude: y, longitude: x)) } }
                for _ in 0..<400 {
                    let column = rng.int(0...view.columns), row = rng.int(0...view.rows)
                    let x = view.minLongitude + Double(column) / view.inverseCellWidth
                    let y = view.minLatitude + Double(row) / view.inverseCellHeight
                    points.append(Coordinate(latitude: y, longitude: x))
                    points.append(Coordinate(latitude: y.nextDown, longitude: x.nextUp))
                }
                for bad in [Double.nan, .infinity, -.infinity, 1e300, -1e300] {
                    points.append(Coordinate(latitude: bad, longitude: view.minLongitude))
                    points.append(Coordinate(latitude: view.minLatitude, longitude: bad))
                }
                let expected = Self.twin(view, points)
                let n = points.count
                let indexes = UnsafeMutablePointer<Int32>.allocate(capacity: n)
                let fine = UnsafeMutablePointer<UInt64>.allocate(capacity: n)
                defer { indexes.deallocate(); fine.deallocate() }
                let latitudes = points.map(\.latitude), longitudes = points.map(\.longitude)
                let m = view.locate(latitudes: latitudes, longitudes: longitudes, count: n, indexes: indexes, fine: fine)
                #expect(m == expected.count, "seed \(seed) \(name) wide \(wide): \(m) located, the twin \(expected.count)")
                for k in 0..<min(m, expected.count) where indexes[k] != expected[k].index || fine[k] != expected[k].fine {
                    Issue.record("seed \(seed) \(name) wide \(wide): fix \(k) is \(indexes[k]) in \(fine[k]), the twin's \(expected[k])")
                    break
                }
                // The variant that also keeps the coordinates: the same fixes, each with its own
                // longitude and latitude (bit for bit).
                let indexes2 = UnsafeMutablePointer<Int32>.allocate(capacity: n)
                let fine2 = UnsafeMutablePointer<UInt64>.allocate(capacity: n)
                let coordinates = UnsafeMutablePointer<SIMD2<Double>>.allocate(capacity: n)
                defer { indexes2.deallocate(); fine2.deallocate(); coordinates.deallocate() }
                let m2 = view.locate(
                    latitudes: latitudes, longitudes: longitudes, count: n, indexes: indexes2, fine: fine2,
                    coordinates: coordinates)
                #expect(m2 == m, "seed \(seed) \(name) wide \(wide): \(m2) located with coordinates, \(m) without")
                for k in 0..<min(m, m2) {
                    let i = Int(indexes2[k])
                    let same = indexes2[k] == indexes[k] && fine2[k] == fine[k]
                        && coordinates[k].x.bitPattern == longitudes[i].bitPattern
                        && coordinates[k].y.bitPattern == latitudes[i].bitPattern
                    if !same {
                        Issue.record("seed \(seed) \(name) wide \(wide): fix \(k) is \(indexes2[k]) at \(coordinates[k]), without coordinates \(indexes[k])")
                        break
                    }
                }
                // The per-fix query's first look: the same cell, or −1 (−2 with large entries).
                let coverage = PointCoverage(view)
                for (i, p) in points.enumerated() {
                    var expected = -2
                    if !coverage.everyPoint {
                        let f = coverage.fine(latitude: p.latitude, longitude: p.longitude)
                        expected = f.map { coverage.isReached($0) ? coverage.cell($0) : -1 } ?? -1
                    }
                    let cell = coverage.candidateCell(latitude: p.latitude, longitude: p.longitude)
                    if cell != expected {
                        Issue.record("seed \(seed) \(name) wide \(wide): point \(i) \(p) has cell \(cell), the twin's \(expected)")
                        break
                    }
                }
                // Fixes both kept and dropped: the test says something either way.
                #expect(m > 0 && m < n, "seed \(seed) \(name) wide \(wide): \(m) of \(n) located")
            }
        }
    }
}
