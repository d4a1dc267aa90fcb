import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// Nearest fences through the R-tree against the scan, and polygon distances against dense
/// sampling of the boundary.
@Suite("Nearest fences")
struct NearestTests {
    static func filter(_ rng: inout SeededGenerator) -> NearestFilter {
        NearestFilter(
            level: rng.chance(0.5) ? rng.int(0...2) : nil,
            options: ContainmentOptions(levelFences: !rng.chance(0.1), globalFences: !rng.chance(0.1)),
            library: rng.chance(0.2) ? "lib\(rng.int(0...2))" : nil,
            kind: rng.chance(0.2) ? NearestFilter.Kind.allCases[rng.int(0...1)] : nil)
    }

    @Test("nearest equals nearestByScan: distances, order, ties by id", arguments: [51, 52, 53] as [UInt64])
    func nearestMatchesScan(seed: UInt64) throws {
        for (name, world) in IndexedContainmentTests.worlds {
            for size in [0, 1, 16, 17, 150] {
                var rng = SeededGenerator(seed: seed &* 41 &+ UInt64(size))
                var w = world
                w.duplicateShare = 0.15  // many exact ties
                let fences = w.fences(count: size, &rng)
                let evaluator = try ContainmentEvaluator(fenceSet: try FenceSet(fences))
                for p in w.queryPoints(count: 40, fences: fences, &rng) {
                    let filter = Self.filter(&rng)
                    let k = rng.chance(0.2) ? size + 3 : rng.int(1...12)
                    let scan = try evaluator.nearestByScan(latitude: p.latitude, longitude: p.longitude, count: k, filter: filter)
                    let tree = try evaluator.nearestSlots(latitude: p.latitude, longitude: p.longitude, count: k, filter: filter)
                    #expect(tree == scan, "seed \(seed) world \(name) size \(size) k \(k) at \(p) filter \(filter)")
                }
            }
        }
    }

    @Test("count ≤ 0 gives nothing; filters exclude what they should")
    func filtersAndCounts() throws {
        let set = try FenceSet([
            Fence(geofenceID: "a", shape: .circle(center: Coordinate(latitude: 10, longitude: 10), radius: 100), library: "x"),
            Fence(geofenceID: "b", shape: .circle(center: Coordinate(latitude: 10, longitude: 10.01), radius: 100), level: 2),
            Fence(geofenceID: "c", shape: .polygon(MultiPolygon(polygons: [RandomWorld.city.rectangle(south: 10, north: 10.001, west: 10.02, east: 10.021)]))),
        ])
        let e = try ContainmentEvaluator(fenceSet: set)
        #expect(try e.nearest(latitude: 10, longitude: 10, count: 0).isEmpty)
        #expect(try e.nearest(latitude: 10, longitude: 10, count: 5).map(\.geofenceID) == ["a", "c"])
        #expect(try e.nearest(latitude: 10, longitude: 10, count: 5, filter: NearestFilter(level: 2)).map(\.geofenceID) == ["a", "b", "c"])
        #expect(try e.nearest(latitude: 10, longitude: 10, count: 5, filter: NearestFilter(library: "x")).map(\.geofenceID) == ["a"])
        #expect(try e.nearest(latitude: 10, longitude: 10, count: 5, filter: NearestFilter(kind: .polygon)).map(\.geofenceID) == ["c"])
        let inside = try e.nearest(latitude: 10, longitude: 10, count: 1)
        #expect(inside.first?.distance == 0)
    }

    @Test("circle distance is the centre distance minus the radius, across the antimeridian")
    func circleDistance() throws {
        let center = Coordinate(latitude: -20, longitude: 179.999)
        let set = try FenceSet([Fence(geofenceID: "c", shape: .circle(center: center, radius: 250))])
        let e = try ContainmentEvaluator(fenceSet: set)
        let p = Coordinate(latitude: -20, longitude: -179.98)
        let got = try e.nearest(latitude: p.latitude, longitude: p.longitude, count: 1)
        #expect(got.count == 1)
        #expect(abs(got[0].distance - (Sphere.distance(p, center) - 250)) < 1e-6)
        #expect(got[0].distance > 1_500 && got[0].distance < 2_500)
    }

    /// Smallest distance from `p` to the rings, sampling every edge (straight in lon/lat)
    /// every `step` metres or less.
    static func sampledDistance(from p: Coordinate, to shape: MultiPolygon, step: Double) -> Double {
        var best = Double.infinity
        for ring in shape.allRings {
            for i in 1..<ring.count {
                let a = ring[i - 1], b = ring[i]
                let n = Swift.max(1, Int((Sphere.distance(a, b) / step).rounded(.up)))
                for k in 0...n {
                    let t = Double(k) / Double(n)
                    let q = Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t,
                                       longitude: a.longitude + (b.longitude - a.longitude) * t)
                    best = Swift.min(best, Sphere.distance(p, q))
                }
            }
        }
        return best
    }

    @Test("polygon distance within 1 m of dense sampling for fences up to 10 km across", arguments: [61, 62] as [UInt64])
    func polygonDistanceAccuracy(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<12 {
            let center = Coordinate(latitude: rng.double(-70...70), longitude: rng.double(-179...179))
            let world = RandomWorld(center: center, spread: 0)
            let size = rng.logUniform(200, 5_000)  // radius: up to 10 km across
            let shape = world.polygon(around: center, size: size, &rng)
            guard case .polygon(let multi) = shape else { continue }
            let set = try FenceSet([Fence(geofenceID: "p", shape: shape)])
            let e = try ContainmentEvaluator(fenceSet: set)
            for _ in 0..<4 {
                let p = Sphere.destination(from: center, distance: rng.double(0...(3 * size)), bearing: rng.double(0...(2 * .pi)))
                let got = try e.nearest(latitude: p.latitude, longitude: p.longitude, count: 1)[0].distance
                if try e.covers(slot: 0, latitude: p.latitude, longitude: p.longitude) {
                    #expect(got == 0, "seed \(seed) trial \(trial): inside but distance \(got)")
                    continue
                }
                let sampled = Self.sampledDistance(from: p, to: multi, step: 0.5)
                #expect(abs(got - sampled) <= 1, "seed \(seed) trial \(trial) size \(size) at \(p): \(got) vs sampled \(sampled)")
            }
        }
    }
}
