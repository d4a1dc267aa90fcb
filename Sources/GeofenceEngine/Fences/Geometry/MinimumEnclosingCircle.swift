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
        /// Per exterior vertex: sin and cos of the latitude, the latitude in radians, and its
        /// haversine estimate between the farthest-vertex search's two passes.
        var trig: [SIMD4<Double>] = []
        var points: [SIMD2<Double>] = []
    }

    /// The circle around the exterior rings of record `i` (a polygon).
    /// - Complexity: O(v) expected for v exterior vertices (a few trigonometric calls each).
    static func of(_ r: FenceRecords, _ i: Int, scratch: inout Scratch) -> EnclosingCircle {
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
    /// Three `sincos` per vertex where the first version made ten calls (the trigonometry was
    /// the largest cost of loading polygons): `sincos` gives the C library's `sin` and `cos`
    /// to the bit; the projection's scale comes from its series
    /// (`LocalProjection.projectNearCenter`, within an ulp or two of `acos` and `sin`); and
    /// the farthest vertex is found from haversine terms estimated without `sin`, the exact
    /// term computed only for the vertices within rounding of the farthest. The radii are the
    /// ten calls' (tested on every fence file against GEOS's circle); a centre may differ in
    /// its last bit.
    static func of(exteriors count: Int, scratch: inout Scratch, _ exterior: (Int) -> UnsafeBufferPointer<Double>) -> EnclosingCircle {
        // Sines and cosines of every vertex's latitude, computed once.
        scratch.trig.removeAll(keepingCapacity: true)
        scratch.points.removeAll(keepingCapacity: true)
        var sx = 0.0, sy = 0.0, sz = 0.0
        for k in 0..<count {
            let ring = exterior(k)
            for i in stride(from: 0, to: ring.count - 1, by: 2) {
                let lat = ring[i + 1] * Sphere.degreesToRadians, lon = ring[i] * Sphere.degreesToRadians
                let (sinLat, cosLat) = CMath.sinCos(lat)
                let (sinLon, cosLon) = CMath.sinCos(lon)
                sx += cosLat * cosLon; sy += cosLat * sinLon; sz += sinLat
                scratch.trig.append(SIMD4(sinLat, cosLat, lat, 0))
            }
        }
        let norm = (sx * sx + sy * sy + sz * sz).squareRoot()
        let first = exterior(0)
        let mean = norm < 1e-12
            ? Coordinate(latitude: first[1], longitude: first[0])
            : Coordinate(
                latitude: Double.asin(Swift.max(-1, Swift.min(1, sz / norm))) * Sphere.radiansToDegrees,
                longitude: Double.atan2(y: sy, x: sx) * Sphere.radiansToDegrees)
        let projection = LocalProjection(center: mean)
        var v = 0
        for k in 0..<count {
            let ring = exterior(k)
            for i in stride(from: 0, to: ring.count - 1, by: 2) {
                let (sinDLon, cosDLon) = CMath.sinCos(projection.longitudeOffset(ring[i]))
                let p = projection.projectNearCenter(
                    sinLatitude: scratch.trig[v].x, cosLatitude: scratch.trig[v].y, sinLongitudeOffset: sinDLon, cosLongitudeOffset: cosDLon)
                scratch.points.append(SIMD2(p.x, p.y))
                v += 1
            }
        }
        let planar = planarCircle(&scratch.points)
        let center = projection.unproject(x: planar.x, y: planar.y)
        let radius = Sphere.distance(haversineTerm: largestHaversineTerm(from: center, exteriors: count, trig: &scratch.trig, exterior))
        // Round up to the millimetre so the circle holds every vertex despite rounding.
        return EnclosingCircle(center: center, radius: (radius * 1000).rounded(.up) / 1000 + 0.001)
    }

    /// The largest haversine term from `center` to an exterior vertex (the farthest vertex:
    /// distance grows with the term), exactly as computing every term with `sin` gives it.
    ///
    /// The terms are estimated first (``Sphere/haversineTermEstimate(latitude1:longitude1:cosLatitude1:latitude2:longitude2:cosLatitude2:)``,
    /// within 1e-15 relative); only vertices whose estimate is within 1e-12 of the largest, or
    /// that the estimate does not cover, get the exact term. Each vertex's estimate is kept in
    /// `trig[v].w` (NaN where there is none) between the two passes.
    static func largestHaversineTerm(
        from center: Coordinate, exteriors count: Int, trig: inout [SIMD4<Double>], _ exterior: (Int) -> UnsafeBufferPointer<Double>
    ) -> Double {
        let lat1 = center.latitude * Sphere.degreesToRadians, lon1 = center.longitude * Sphere.degreesToRadians
        let cos1 = Double.cos(lat1)
        @inline(__always) func exact(_ v: Int, _ longitude: Double) -> Double {
            Sphere.haversineTerm(
                latitude1: lat1, longitude1: lon1, cosLatitude1: cos1,
                latitude2: trig[v].z, longitude2: longitude * Sphere.degreesToRadians, cosLatitude2: trig[v].y)
        }
        @inline(__always) func estimate(_ v: Int, _ longitude: Double) -> Double? {
            Sphere.haversineTermEstimate(
                latitude1: lat1, longitude1: lon1, cosLatitude1: cos1,
                latitude2: trig[v].z, longitude2: longitude * Sphere.degreesToRadians, cosLatitude2: trig[v].y)
        }
        var largestEstimate = -Double.infinity, largestExact = -Double.infinity
        var v = 0
        for k in 0..<count {
            let ring = exterior(k)
            for i in stride(from: 0, to: ring.count - 1, by: 2) {
                if let e = estimate(v, ring[i]) {
                    largestEstimate = Swift.max(largestEstimate, e)
                    trig[v].w = e
                } else {
                    largestExact = Swift.max(largestExact, exact(v, ring[i]))
                    trig[v].w = .nan
                }
                v += 1
            }
        }
        guard largestEstimate > -Double.infinity else { return largestExact }
        let floor = largestEstimate * (1 - 1e-12) - 1e-300
        v = 0
        for k in 0..<count {
            let ring = exterior(k)
            for i in stride(from: 0, to: ring.count - 1, by: 2) {
                // A NaN (no estimate: its exact term is counted already) is never ≥ floor.
                if trig[v].w >= floor { largestExact = Swift.max(largestExact, exact(v, ring[i])) }
                v += 1
            }
        }
        return largestExact
    }

    /// The smallest circle holding the points, in their plane: (centre x, centre y) and radius.
    ///
    /// Welzl's algorithm in its iterative form (de Berg et al., "MiniDisc") over the points in
    /// a fixed pseudo-random order, so the answer is deterministic and the expected time linear.
    /// - Complexity: O(n) expected.
    static func planarCircle(_ points: inout [SIMD2<Double>]) -> (x: Double, y: Double, radius: Double) {
        let n = points.count
        guard n > 1 else { return (points.first?.x ?? 0, points.first?.y ?? 0, 0) }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
        for i in stride(from: n - 1, to: 0, by: -1) {
            points.swapAt(i, shuffleIndex(&state, below: i + 1))
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
