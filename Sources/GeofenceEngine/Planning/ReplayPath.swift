import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

/// The unobserved movement between two consecutive fixes of a device, modelled as the
/// straight line in longitude/latitude from one to the other (the same straightness GeoJSON
/// and GEOS give polygon edges), parametrised by t ∈ [0, 1].
///
/// It is what the replay uses to find where the OS would see the device leave its refresh
/// region, and where the device crossed into a fence.
struct ReplayPath {
    let start: Coordinate
    let end: Coordinate
    /// Latitude and (unwrapped, so a step across ±180° goes the short way) longitude change.
    let dLatitude: Double
    let dLongitude: Double
    /// Great-circle distance between the fixes, metres (the path's length to well under 0.1 %
    /// for steps of a few kilometres).
    let length: Double

    /// Longest piece, metres, inside which the distance to a region's centre is treated as
    /// unimodal (a convex disc meets a near-straight 100 m piece in one interval).
    static let pieceLength: Double = 100
    /// Smallest step, metres, from one re-plan to the next along a path when the refresh region
    /// is smaller than this, so a region of radius 0 cannot stall the replay (each forced step
    /// is counted in the report).
    static let minimumStep: Double = 1

    init(from start: Coordinate, to end: Coordinate) {
        self.start = start
        self.end = end
        dLatitude = end.latitude - start.latitude
        var dLon = end.longitude - start.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        dLongitude = dLon
        length = Sphere.distance(start, end)
    }

    /// The position at parameter t.
    /// - Complexity: O(1).
    func point(_ t: Double) -> Coordinate {
        if t >= 1 { return end }
        return Coordinate(
            latitude: start.latitude + dLatitude * t,
            longitude: Sphere.wrapLongitude(start.longitude + dLongitude * t))
    }

    /// The first parameter after `t0` at which the path is more than `radius` metres from
    /// `center`, or nil when it stays within the circle up to the end. The answer is at most
    /// 1 mm past the true crossing; for a circle smaller than ``minimumStep`` it is at least
    /// that far past `t0` (`forced` tells when that floor, not the circle, decided it).
    /// - Complexity: O(length / pieceLength) distance evaluations plus a bisection.
    func firstExit(from t0: Double, center: Coordinate, radius: Double) -> (t: Double, forced: Bool)? {
        guard length > 0, t0 < 1 else { return nil }
        let pieces = Swift.max(1, Int(((1 - t0) * length / Self.pieceLength).rounded(.up)))
        var previous = t0
        for k in 1...pieces {
            let u = k == pieces ? 1 : t0 + (1 - t0) * Double(k) / Double(pieces)
            if Sphere.distance(center, point(u)) > radius {
                // previous: inside (or the start); u: outside. Bisect to 1 mm.
                var lo = previous, hi = u
                while (hi - lo) * length > 0.001 {
                    let mid = 0.5 * (lo + hi)
                    if Sphere.distance(center, point(mid)) > radius { hi = mid } else { lo = mid }
                }
                // A region under 1 m (an unmonitored fence within the margin) would re-plan
                // every millimetre; step at least 1 m then. A larger region needs no floor:
                // each re-plan starts at its centre, so the next exit is a radius away.
                let floor = Swift.min(1, t0 + Self.minimumStep / length)
                return radius < Self.minimumStep && hi < floor ? (floor, true) : (hi, false)
            }
            previous = u
        }
        return nil
    }

    /// A parameter at which the path crosses from outside the fence in `slot` to inside it,
    /// given that the start is outside and the end inside: bisection on the exact test, to
    /// 1 mm. The returned point is inside.
    /// - Complexity: O(log(length / 1 mm)) exact tests.
    func crossing(into slot: Int, evaluator: ContainmentEvaluator) throws(GEOSError) -> Double {
        var lo = 0.0, hi = 1.0
        while (hi - lo) * Swift.max(length, 1) > 0.001 {
            let mid = 0.5 * (lo + hi)
            let p = point(mid)
            if try evaluator.covers(slot: slot, latitude: p.latitude, longitude: p.longitude) { hi = mid } else { lo = mid }
        }
        return hi
    }
}
