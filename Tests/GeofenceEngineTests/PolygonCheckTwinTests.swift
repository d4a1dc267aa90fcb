import Foundation
import GeofenceGEOS
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// The Swift geometry checks against GEOS: a polygon certified valid is valid for GEOS, and
/// Welzl's circle is GEOS's minimum bounding circle.
@Suite("Polygon checks against GEOS")
struct PolygonCheckTwinTests {
    /// A polygon on a coarse grid (many collinear and touching vertices) or a jittered star:
    /// simple, self-intersecting, spiked, with holes that touch, cross or lie outside.
    static func polygon(_ rng: inout SplitMix64) -> MultiPolygon {
        func ring(_ n: Int, cx: Double, cy: Double, r: Double, grid: Bool) -> Ring {
            var points: [Coordinate] = []
            for k in 0..<n {
                var angle = Double(k) / Double(n) * 2 * .pi
                if rng.chance(0.2) { angle = rng.double(0...(2 * .pi)) }  // out of order: may cross
                var x = cx + r * rng.double(0.3...1) * Foundation.cos(angle), y = cy + r * rng.double(0.3...1) * Foundation.sin(angle)
                if grid { x = (x * 1000).rounded() / 1000; y = (y * 1000).rounded() / 1000 }
                points.append(Coordinate(latitude: y, longitude: x))
            }
            return Ring(closing: points)
        }
        let grid = rng.chance(0.5)
        var polygons: [Polygon] = []
        for part in 0..<(rng.chance(0.2) ? 2 : 1) {
            let cx = Double(part) * (rng.chance(0.5) ? 0.03 : 0.008)
            let exterior = ring(rng.chance(0.2) ? rng.int(40...90) : rng.int(3...12), cx: cx, cy: 0, r: 0.01, grid: grid)
            let holes = (0..<(rng.chance(0.3) ? rng.int(1...2) : 0)).map { _ in
                ring(rng.int(3...6), cx: cx + rng.double(-0.006...0.006), cy: rng.double(-0.006...0.006), r: rng.double(0.001...0.005), grid: grid)
            }
            polygons.append(Polygon(exterior: exterior, holes: holes))
        }
        return MultiPolygon(polygons: polygons)
    }

    @Test("a polygon certified valid is valid for GEOS", arguments: [1, 2, 3] as [UInt64])
    func certification(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let context = try GEOSContext()
        var certified = 0, valid = 0
        for round in 0..<1500 {
            let shape = Self.polygon(&rng)
            guard shape.polygons.allSatisfy({ $0.rings.allSatisfy { $0.count >= 4 } }) else { continue }
            var records = FenceRecords()
            records.append(Fence(geofenceID: "p", shape: .polygon(shape)))
            var scratch = PolygonValidity.Scratch()
            let ok = PolygonValidity.certifies(records, 0, scratch: &scratch)
            let reason = try context.validityProblem(of: shape)
            let geosValid = reason == nil
            if ok { certified += 1 }
            if geosValid { valid += 1 }
            #expect(!ok || geosValid, "seed \(seed) round \(round): certified, but GEOS says \(reason ?? "")\n\(shape)")
        }
        // The test has teeth: most valid polygons are certified, and some are not valid.
        #expect(certified > valid / 2 && valid < 1400, "seed \(seed): \(certified) certified, \(valid) valid")
    }

    /// The star-shape certificate against GEOS: every ring it certifies is a valid polygon
    /// for GEOS, over seeded stars (most of them star-shaped about their mean), rings with
    /// points out of order, stars that wind twice or more ({n/k} polygrams: every edge turns
    /// the same way about the centre), rings snapped to a coarse grid, both orientations.
    @Test("a ring certified star-shaped is a valid polygon for GEOS", arguments: [5, 6] as [UInt64])
    func starShaped(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let context = try GEOSContext()
        var certified = 0, windingMore = 0
        for round in 0..<3000 {
            let n = rng.int(3...40)
            let winds = rng.chance(0.25) ? rng.int(2...3) : 1
            var points: [Coordinate] = []
            for k in 0..<n {
                var angle = (Double(k * winds) + rng.double(0...0.9)) / Double(n) * 2 * .pi
                if rng.chance(0.05) { angle = rng.double(0...(2 * .pi)) }
                var x = 0.01 * rng.double(0.3...1) * Foundation.cos(angle), y = 0.01 * rng.double(0.3...1) * Foundation.sin(angle)
                if rng.chance(0.2) { x = (x * 2000).rounded() / 2000; y = (y * 2000).rounded() / 2000 }
                points.append(Coordinate(latitude: y, longitude: x - 73.9))
            }
            if rng.chance(0.5) { points.reverse() }
            let ring = Ring(closing: points)
            let flat = ring.positions
            let star = flat.withUnsafeBufferPointer {
                PolygonValidity.ringIsStarShaped($0.baseAddress!, PolygonValidity.Ring(first: 0, count: ring.count))
            }
            guard star else { continue }
            certified += 1
            // Stepping `winds` points of n round the circle winds min(w, n − w) times for
            // w = winds mod n (the other way past n / 2): such a ring is never simple.
            let w = winds % n
            if Swift.min(w, n - w) > 1 && Self.gcd(n, winds) == 1 { windingMore += 1 }
            let shape = MultiPolygon(polygons: [Polygon(exterior: ring, holes: [])])
            let reason = try context.validityProblem(of: shape)
            #expect(reason == nil, "seed \(seed) round \(round): star-shaped, but GEOS says \(reason ?? "")\n\(shape)")
        }
        #expect(certified > 300 && windingMore == 0, "seed \(seed): \(certified) certified, \(windingMore) winding more than once")
        // A pentagram: every edge turns counterclockwise about its centre, and it winds twice.
        let pentagram = (0..<5).map { k in
            Coordinate(latitude: Foundation.sin(Double(2 * k) * 2 * .pi / 5), longitude: Foundation.cos(Double(2 * k) * 2 * .pi / 5))
        }
        let flat = Ring(closing: pentagram).positions
        #expect(!flat.withUnsafeBufferPointer { PolygonValidity.ringIsStarShaped($0.baseAddress!, PolygonValidity.Ring(first: 0, count: 6)) })
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }

    @Test("Welzl's circle equals GEOS's minimum bounding circle", arguments: [1, 2] as [UInt64])
    func planarCircle(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let context = try GEOSContext()
        for round in 0..<2000 {
            let n = rng.int(2...60)
            let scale = rng.chance(0.5) ? 1.0 : 20_000.0
            var points: [SIMD2<Double>] = (0..<n).map { _ in
                rng.chance(0.3)
                    ? SIMD2(Double(rng.int(-5...5)), Double(rng.int(-5...5))) * scale  // repeated and collinear points
                    : SIMD2(rng.double(-1...1), rng.double(-1...1)) * scale
            }
            let geos = try context.minimumBoundingCircle(of: points.map { (x: $0.x, y: $0.y) })
            let mine = MinimumEnclosingCircle.planarCircle(&points)
            let tolerance = 1e-9 * scale
            #expect(abs(mine.radius - geos.radius) <= tolerance, "seed \(seed) round \(round): \(mine) against \(geos)")
            #expect(abs(mine.x - geos.x) <= tolerance && abs(mine.y - geos.y) <= tolerance, "seed \(seed) round \(round): \(mine) against \(geos)")
        }
    }

    /// The farthest vertex found from chords between unit vectors against every term computed
    /// with `sin`: rings near and far, vertices repeated, mirrored or a rounding apart, at the
    /// antimeridian and near the poles.
    @Test("the largest haversine term found from chords equals the largest exact term", arguments: [3, 4] as [UInt64])
    func largestTerm(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        for round in 0..<3000 {
            let center = Coordinate(latitude: rng.double(-89...89), longitude: rng.double(-180...180))
            let spread = [1e-6, 1e-3, 0.3, 5, 120][rng.int(0...4)]
            var ring: [Double] = []
            for _ in 0..<rng.int(1...40) {
                let vertex: (Double, Double)
                if rng.chance(0.2) && ring.count >= 2 {
                    // Mirrored across the centre's meridian: as far from the centre as the last.
                    vertex = (Sphere.wrapLongitude(2 * center.longitude - ring[ring.count - 2]), ring[ring.count - 1])
                } else if rng.chance(0.3) && ring.count >= 2 {
                    // Repeated, or moved by an ulp: ties the chords cannot tell apart.
                    let (x, y) = (ring[ring.count - 2], ring[ring.count - 1])
                    vertex = rng.chance(0.5) ? (x, y) : (rng.chance(0.5) ? x.nextUp : x.nextDown, rng.chance(0.5) ? y : y.nextUp)
                } else {
                    vertex = (Sphere.wrapLongitude(center.longitude + rng.double(-spread...spread)),
                              max(-90, min(90, center.latitude + rng.double(-spread...spread))))
                }
                ring += [vertex.0, vertex.1]
            }
            ring += [ring[0], ring[1]]  // closed, as rings are
            // The vectors as the circle makes them: near the first vertex without `sincos`.
            let nearby = MinimumEnclosingCircle.NearbyUnits(latitude: ring[1], longitude: ring[0])
            let units = stride(from: 0, to: ring.count - 1, by: 2).map { i -> SIMD4<Double> in
                nearby.unit(latitude: ring[i + 1], longitude: ring[i])
                    ?? MinimumEnclosingCircle.NearbyUnits.exactUnit(latitude: ring[i + 1], longitude: ring[i])
            }
            let lat1 = center.latitude * Sphere.degreesToRadians, lon1 = center.longitude * Sphere.degreesToRadians
            var exact = -Double.infinity
            for (v, i) in stride(from: 0, to: ring.count - 1, by: 2).enumerated() {
                exact = max(exact, Sphere.haversineTerm(
                    latitude1: lat1, longitude1: lon1, cosLatitude1: cos(lat1),
                    latitude2: units[v].w, longitude2: ring[i] * Sphere.degreesToRadians, cosLatitude2: cos(units[v].w)))
            }
            let found = ring.withUnsafeBufferPointer { all in
                MinimumEnclosingCircle.largestHaversineTerm(from: center, units: units, exteriors: 1) { _ in all }
            }
            #expect(found == exact, "seed \(seed) round \(round): \(found) against \(exact)")
        }
    }

    /// Unit vectors from the angle-sum formulas against the C library's `sin` and `cos`: within
    /// 8e-16 per component near the reference (both sides of zero, the poles, the
    /// antimeridian, up to the 0.01 rad limit), and none beyond it.
    @Test("unit vectors near a reference equal the C library's to 8e-16", arguments: [7, 8] as [UInt64])
    func nearbyUnits(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var worst = 0.0
        for round in 0..<20_000 {
            let latitude = rng.chance(0.1) ? rng.double(-0.3...0.3) : rng.double(-90...90)
            let longitude = rng.chance(0.1) ? [180.0, -180, 0][rng.int(0...2)] : rng.double(-180...180)
            let nearby = MinimumEnclosingCircle.NearbyUnits(latitude: latitude, longitude: longitude)
            let limit = 0.01 * Sphere.radiansToDegrees
            let spread = [1e-7, 1e-3, 0.3, 0.99 * limit, 2 * limit][rng.int(0...4)]
            let lat = latitude + rng.double(-spread...spread), lon = longitude + rng.double(-spread...spread)
            let near = abs(lat - latitude) * Sphere.degreesToRadians < 0.01 && abs(lon - longitude) * Sphere.degreesToRadians < 0.01
            guard let u = nearby.unit(latitude: lat, longitude: lon) else {
                #expect(!near, "seed \(seed) round \(round): no vector for (\(lat), \(lon)) near (\(latitude), \(longitude))")
                continue
            }
            #expect(near, "seed \(seed) round \(round): a vector for (\(lat), \(lon)), beyond the limit from (\(latitude), \(longitude))")
            let r = lat * Sphere.degreesToRadians, l = lon * Sphere.degreesToRadians
            let error = max(abs(u.x - cos(r) * cos(l)), abs(u.y - cos(r) * sin(l)), abs(u.z - sin(r)))
            worst = max(worst, error)
            #expect(error <= 8e-16 && u.w == r, "seed \(seed) round \(round): (\(lat), \(lon)) near (\(latitude), \(longitude)): \(u), error \(error)")
        }
        #expect(worst > 0, "seed \(seed): every vector equal to the bit; the test does not look")
    }

    /// The frame's projection against `LocalProjection`, its slow twin (a coordinate's sines
    /// and cosines, and those of its longitude's offset from the centre): the same points to
    /// rounding (10 nm), near the centre (the series) and far from it (`atan2`), across the
    /// antimeridian and at the poles; and unprojecting gives the coordinate back.
    @Test("the enclosing circle's projection frame equals LocalProjection", arguments: [5, 6] as [UInt64])
    func projectionFrame(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        for round in 0..<4000 {
            let center = rng.chance(0.1)
                ? Coordinate(latitude: rng.chance(0.5) ? 90 : -90, longitude: 0)
                : Coordinate(latitude: rng.double(-89.9...89.9), longitude: rng.chance(0.2) ? 180 : rng.double(-180...180))
            let spread = [1e-5, 1e-2, 0.4, 0.55, 30][rng.int(0...4)]
            let point = Coordinate(
                latitude: max(-90, min(90, center.latitude + rng.double(-spread...spread))),
                longitude: Sphere.wrapLongitude(center.longitude + rng.double(-spread...spread)))
            func unit(_ c: Coordinate) -> SIMD4<Double> {
                let lat = c.latitude * Sphere.degreesToRadians, lon = c.longitude * Sphere.degreesToRadians
                return SIMD4(cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat), lat)
            }
            let m = unit(center)
            let frame = MinimumEnclosingCircle.ProjectionFrame(center: SIMD3(m.x, m.y, m.z))
            let mine = frame.project(unit(point))
            let twin = LocalProjection(center: center).project(latitude: point.latitude, longitude: point.longitude)
            // Within 10 nm and 1e-12 of the distance: the vectors' components are within an ulp
            // or two of 1, which is 1e-9 m at the Earth's radius. (A series coefficient off by
            // 2 % is 4e-12 of the distance at 0.55°.)
            let size = (twin.x * twin.x + twin.y * twin.y).squareRoot(), tolerance = 1e-8 + 1e-12 * size
            #expect(abs(mine.x - twin.x) <= tolerance && abs(mine.y - twin.y) <= tolerance,
                    "seed \(seed) round \(round): \(point) about \(center): \(mine) against \(twin)")
            let back = frame.unproject(x: mine.x, y: mine.y)
            #expect(Sphere.distance(back, point) <= 1e-6 + 1e-12 * size,
                    "seed \(seed) round \(round): \(point) about \(center) came back as \(back)")
        }
    }

    @Test("the shuffle's draws are spread over their whole range (Welzl's expected linear time)")
    func shuffleDraws() {
        var state: UInt64 = 12_345
        for bound in [1, 2, 7, 100, 27_059] {
            let draws = 50 * Swift.min(bound, 100)
            var counts = [Int: Int]()
            for _ in 0..<draws {
                let k = MinimumEnclosingCircle.shuffleIndex(&state, below: bound)
                #expect((0..<bound).contains(k), "draw \(k) outside 0..<\(bound)")
                counts[k, default: 0] += 1
            }
            // Every value of a small range is drawn, none far more often than its share.
            if bound <= 100 {
                #expect(counts.count == bound, "bound \(bound): only \(counts.count) distinct draws")
            } else {
                #expect(counts.count > draws / 2, "bound \(bound): only \(counts.count) distinct draws of \(draws)")
            }
            #expect(counts.values.max()! <= 3 * draws / bound + 10, "bound \(bound): a value drawn \(counts.values.max()!) times")
        }
    }

    @Test("a ring of 20,000 vertices in ring order is enclosed in linear time")
    func largeRing() {
        // In ring order (the order a polygon's vertices come in) without a real shuffle this
        // took minutes in a debug build; the bound on point tests is generous.
        let n = 20_000
        var points = (0..<n).map { k -> SIMD2<Double> in
            let a = Double(k) / Double(n) * 2 * Double.pi
            return SIMD2(1000 * cos(a) + 3 * sin(7 * a), 800 * sin(a))
        }
        let circle = MinimumEnclosingCircle.planarCircle(&points)
        let far = points.map { (($0 - SIMD2(circle.x, circle.y)) * ($0 - SIMD2(circle.x, circle.y))).sum().squareRoot() }.max()!
        #expect(far <= circle.radius * (1 + 1e-9), "a point lies outside the circle")
        #expect(circle.radius >= 1000 && circle.radius < 1004)
    }
}
