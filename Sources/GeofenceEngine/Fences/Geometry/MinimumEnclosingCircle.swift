import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry
import RealModule

/// The minimum enclosing circle of a polygon, in metres on the sphere (semantics §1: a
/// polygon's radius wherever one is needed).
///
/// The circle is found in an azimuthal equidistant projection centred on the exterior
/// vertices' mean direction (no seam at ±180°, fine at the poles), by Welzl's algorithm in
/// Swift; the radius is then re-measured as the largest great-circle distance from the centre
/// to any exterior vertex, rounded up to the millimetre, so the circle always holds every
/// vertex. (GEOS's `GEOSMinimumBoundingCircle` gives the same planar circle — tested — but
/// also builds the circle as a buffered polygon, which cost more than everything else here.)
enum MinimumEnclosingCircle {
    /// Memory reused from polygon to polygon by one thread.
    struct Scratch {
        /// Per exterior vertex: its unit vector (x, y, z) and its latitude in radians.
        var units: [SIMD4<Double>] = []
        var points: [SIMD2<Double>] = []
    }

    /// The circle around the exterior rings of record `i` (a polygon).
    /// - Complexity: O(v) expected for v exterior vertices (two `sincos` each).
    static func of(_ r: FenceRecords, _ i: Int, scratch: inout Scratch) -> Fence.EnclosingCircle {
        let parts = Int(r.partStarts[i])..<Int(r.partStarts[i + 1])
        // Pointers, not the records: a closure capturing the records copies them (a retain and
        // a release of each of their arrays per polygon).
        return r.vertices.withUnsafeBufferPointer { all in
            r.ringStarts.withUnsafeBufferPointer { ringStarts in
                r.vertexStarts.withUnsafeBufferPointer { vertexStarts in
                    of(exteriors: parts.count, scratch: &scratch) { part in
                        let ring = Int(ringStarts[parts.lowerBound + part])
                        return UnsafeBufferPointer(rebasing: all[(2 * Int(vertexStarts[ring]))..<(2 * Int(vertexStarts[ring + 1]))])
                    }
                }
            }
        }
    }

    /// The circle around `count` exterior rings (flat `[lon, lat, …]` buffers, closed), ring k
    /// being `exterior(k)`.
    ///
    /// No trigonometric call per vertex within 0.57° of the first (``NearbyUnits``), two
    /// `sincos` per vertex beyond; everything else is arithmetic on the vertices' unit vectors
    /// (the first version made ten trigonometric calls per vertex, the largest cost of loading
    /// polygons, the second three, the third two):
    /// - the projection's centre is the vectors' mean direction, and a vertex's projected
    ///   coordinates are its vector's components along the centre's east and north, scaled by
    ///   c / sin c from its series (``ProjectionFrame``);
    /// - the farthest vertex from the circle's centre is the one with the longest chord, found
    ///   from the vectors; the exact haversine term, with `sin` and `cos`, is computed only for
    ///   the vertices whose chord is within rounding of the longest.
    /// The radius is that of the ten calls' method for the centre found, and the centre agrees
    /// with it to rounding (tested on every fence file against GEOS's planar circle).
    static func of(exteriors count: Int, scratch: inout Scratch, _ exterior: (Int) -> UnsafeBufferPointer<Double>) -> Fence.EnclosingCircle {
        scratch.units.removeAll(keepingCapacity: true)
        scratch.points.removeAll(keepingCapacity: true)
        var sx = 0.0, sy = 0.0, sz = 0.0
        let first = exterior(0)
        let nearby = NearbyUnits(latitude: first[1], longitude: first[0])
        for k in 0..<count {
            let ring = exterior(k)
            for i in stride(from: 0, to: ring.count - 1, by: 2) {
                let u = nearby.unit(latitude: ring[i + 1], longitude: ring[i])
                    ?? NearbyUnits.exactUnit(latitude: ring[i + 1], longitude: ring[i])
                sx += u.x; sy += u.y; sz += u.z
                scratch.units.append(u)
            }
        }
        let norm = (sx * sx + sy * sy + sz * sz).squareRoot()
        let frame = ProjectionFrame(
            center: norm < 1e-12 ? SIMD3(scratch.units[0].x, scratch.units[0].y, scratch.units[0].z) : SIMD3(sx, sy, sz) / norm)
        for u in scratch.units { scratch.points.append(frame.project(u)) }
        let planar = planarCircle(&scratch.points)
        let center = frame.unproject(x: planar.x, y: planar.y)
        let radius = Sphere.distance(haversineTerm: largestHaversineTerm(from: center, units: scratch.units, exteriors: count, exterior))
        // Round up to the millimetre so the circle holds every vertex despite rounding.
        return Fence.EnclosingCircle(center: center, radius: (radius * 1000).rounded(.up) / 1000 + 0.001)
    }

    /// The largest haversine term from `center` to an exterior vertex (the farthest vertex:
    /// distance grows with the term), exactly as computing every term with `sin` and `cos`
    /// gives it. `units` holds each vertex's unit vector and latitude in radians, in the
    /// order of `exterior`'s positions.
    ///
    /// Distance also grows with the chord between unit vectors. Each component of a vertex's
    /// vector is within 8e-16 of its true value (``NearbyUnits``), and the centre's within
    /// 4e-16, so a squared chord c² computed from them is within 4.2e-15·c + 4.3e-30 of the
    /// true one; a vertex whose c² is more than 1e-13·c + 1e-29 below the largest is nearer
    /// than the farthest, and only the others get the exact term.
    /// - Complexity: O(v), with a trigonometric call only for the few vertices near the farthest.
    static func largestHaversineTerm(
        from center: Coordinate, units: [SIMD4<Double>], exteriors count: Int, _ exterior: (Int) -> UnsafeBufferPointer<Double>
    ) -> Double {
        let lat1 = center.latitude * Sphere.degreesToRadians, lon1 = center.longitude * Sphere.degreesToRadians
        let q = NearbyUnits.exactUnit(latitude: center.latitude, longitude: center.longitude)
        @inline(__always) func chord2(_ u: SIMD4<Double>) -> Double {  // x, y and z only
            let d = u - q
            return d.x * d.x + d.y * d.y + d.z * d.z
        }
        var longest = 0.0
        for u in units { longest = Swift.max(longest, chord2(u)) }
        let floor = longest - (1e-13 * longest.squareRoot() + 1e-29)
        let cos1 = Double.cos(lat1)
        var largest = -Double.infinity, v = 0
        for k in 0..<count {
            let ring = exterior(k)
            for i in stride(from: 0, to: ring.count - 1, by: 2) {
                let u = units[v]
                if chord2(u) >= floor {
                    largest = Swift.max(largest, Sphere.haversineTerm(
                        latitude1: lat1, longitude1: lon1, cosLatitude1: cos1,
                        latitude2: u.w, longitude2: ring[i] * Sphere.degreesToRadians, cosLatitude2: Double.cos(u.w)))
                }
                v += 1
            }
        }
        return largest
    }

    /// The smallest circle holding the points, in their plane: (centre x, centre y) and radius.
    ///
    /// Welzl's algorithm in its iterative form (de Berg et al., "MiniDisc") over the points in
    /// a fixed pseudo-random order, so the answer is deterministic and the expected time
    /// linear, with three far-apart points moved to the front.
    /// - Complexity: O(n) expected.
    static func planarCircle(_ points: inout [SIMD2<Double>]) -> (x: Double, y: Double, radius: Double) {
        let n = points.count
        guard n > 1 else { return (points.first?.x ?? 0, points.first?.y ?? 0, 0) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
        for i in stride(from: n - 1, to: 0, by: -1) {
            points.swapAt(i, shuffleIndex(&state, below: i + 1))
        }
        // Then to the front: the point farthest from the first, the point farthest from that
        // one, and the point farthest from their middle. Their circle is most often the answer
        // or near it, so few later points fall outside it, and each that does finds the
        // circle's other points first (exact circles per polygon on the peers' 100k world:
        // 16 → 5; the planar step 2.4× faster). The rest stay in shuffled order.
        @inline(__always) func farthest(from a: SIMD2<Double>) -> Int {
            var best = 0, distance = -1.0
            for i in 0..<n {
                let d = points[i] - a
                let d2 = d.x * d.x + d.y * d.y
                if d2 > distance { distance = d2; best = i }
            }
            return best
        }
        points.swapAt(0, farthest(from: points[0]))
        points.swapAt(1, farthest(from: points[0]))
        if n > 2 {
            let third = farthest(from: (points[0] + points[1]) * 0.5)
            if third > 1 { points.swapAt(2, third) }
        }
        var c = points[0], r2 = 0.0
        @inline(__always) func outside(_ p: SIMD2<Double>) -> Bool {
            let d = p - c
            return d.x * d.x + d.y * d.y > r2 * (1 + 1e-14)
        }
        for i in 1..<n where outside(points[i]) {
            c = points[i]
            r2 = 0
            for j in 0..<i where outside(points[j]) {
                c = (points[i] + points[j]) * 0.5
                let d = points[i] - c
                r2 = d.x * d.x + d.y * d.y
                for k in 0..<j where outside(points[k]) {
                    (c, r2) = circumcircle(points[i], points[j], points[k])
                }
            }
        }
        return (c.x, c.y, r2.squareRoot())
    }

    /// The next draw of the shuffle: a number in `0..<bound` (bound < 2³²) from the top 32 bits
    /// of a linear congruential step, by multiplication (no division).
    ///
    /// The expected linear time of Welzl's algorithm rests on this order being random: with
    /// the vertices in ring order it is quadratic or worse (a polygon of 27,000 vertices took
    /// minutes when a precedence slip made every draw 0: `>>` binds tighter than `&*`).
    @inline(__always)
    static func shuffleIndex(_ state: inout UInt64, below bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(((state >> 32) &* UInt64(bound)) >> 32)
    }

    /// The circle through three points; for (nearly) collinear points, the circle on their
    /// farthest pair.
    static func circumcircle(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ p: SIMD2<Double>) -> (SIMD2<Double>, Double) {
        let ax = a.x - p.x, ay = a.y - p.y, bx = b.x - p.x, by = b.y - p.y
        let denominator = 2 * (ax * by - ay * bx)
        let scale = Swift.max(abs(ax), abs(ay), abs(bx), abs(by))
        if abs(denominator) <= 1e-12 * scale * scale {
            let pairs = [(a, b), (a, p), (b, p)]
            let (u, v) = pairs.max { (($0.0 - $0.1) * ($0.0 - $0.1)).sum() < (($1.0 - $1.1) * ($1.0 - $1.1)).sum() }!
            let c = (u + v) * 0.5
            return (c, ((u - c) * (u - c)).sum())
        }
        let a2 = ax * ax + ay * ay, b2 = bx * bx + by * by
        let cx = p.x - (ay * b2 - a2 * by) / denominator
        let cy = p.y + (ax * b2 - a2 * bx) / denominator
        let c = SIMD2(cx, cy)
        let r2 = Swift.max(((a - c) * (a - c)).sum(), ((b - c) * (b - c)).sum(), ((p - c) * (p - c)).sum())
        return (c, r2)
    }
}
