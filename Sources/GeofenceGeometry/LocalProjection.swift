import RealModule
/// An azimuthal equidistant projection centred on one coordinate, in metres.
///
/// Distances and bearings from the centre are exact on the sphere; other distances are
/// distorted by well under 0.1 % within 50 km of the centre. It has no seam at the
/// antimeridian and works at the poles, which is why the minimum enclosing circle of a
/// polygon and the distance from a fix to a polygon edge are both computed in it.
@_spi(Engine) public struct LocalProjection: Sendable {
    package let center: Coordinate
    @usableFromInline let lat0: Double
    @usableFromInline let lon0: Double
    @usableFromInline let sinLat0: Double
    @usableFromInline let cosLat0: Double

    package init(center: Coordinate) {
        self.center = center
        lat0 = center.latitude * Sphere.degreesToRadians
        lon0 = center.longitude * Sphere.degreesToRadians
        sinLat0 = Double.sin(lat0)
        cosLat0 = Double.cos(lat0)
    }

    /// Projects a coordinate to (x east, y north) in metres.
    ///
    /// - Complexity: O(1).
    @inlinable
    package func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let lat = latitude * Sphere.degreesToRadians
        return project(sinLatitude: Double.sin(lat), cosLatitude: Double.cos(lat), longitude: longitude)
    }

    /// ``project(latitude:longitude:)`` with the sine and cosine of the latitude (in radians,
    /// `latitude × degreesToRadians`) already at hand.
    @inlinable
    package func project(sinLatitude sinLat: Double, cosLatitude cosLat: Double, longitude: Double) -> (x: Double, y: Double) {
        let dLon = longitudeOffset(longitude)
        return project(sinLatitude: sinLat, cosLatitude: cosLat, sinLongitudeOffset: Double.sin(dLon), cosLongitudeOffset: Double.cos(dLon))
    }

    /// The longitude's offset from the centre's, in radians: what
    /// ``project(sinLatitude:cosLatitude:sinLongitudeOffset:cosLongitudeOffset:)`` needs the
    /// sine and cosine of.
    @inlinable
    package func longitudeOffset(_ longitude: Double) -> Double { longitude * Sphere.degreesToRadians - lon0 }

    /// ``project(sinLatitude:cosLatitude:longitude:)`` with the sine and cosine of the
    /// longitude offset (``longitudeOffset(_:)``) at hand too: a caller with a `sincos` saves
    /// a call per point (the same values, so the same projection to the bit).
    @inlinable
    package func project(
        sinLatitude sinLat: Double, cosLatitude cosLat: Double, sinLongitudeOffset sinDLon: Double, cosLongitudeOffset cosDLon: Double
    ) -> (x: Double, y: Double) {
        let cosC = cosineOfDistance(sinLatitude: sinLat, cosLatitude: cosLat, cosLongitudeOffset: cosDLon)
        return point(scale: Self.scale(cosC), sinLatitude: sinLat, cosLatitude: cosLat, sinLongitudeOffset: sinDLon, cosLongitudeOffset: cosDLon)
    }

    /// ``project(sinLatitude:cosLatitude:sinLongitudeOffset:cosLongitudeOffset:)`` with the
    /// scale `k = c / sin c` taken from its series where the point lies within 0.01 rad (64 km)
    /// of the centre, instead of from `acos` and `sin`: with u = 1 − cos c,
    /// c² = 2u + u²/3 + 4u³/45 + u⁴/35 and k = 1 + c²/6 + 7c⁴/360 + 31c⁶/15120 (the terms left
    /// out are below 1e-19 of k). k then differs from the libm form by an ulp or two at most;
    /// both are as exact as the rounded `cos c` they start from. The minimum enclosing circle
    /// projects every vertex, and these two calls were a tenth of its cost.
    /// - Complexity: O(1).
    @inlinable
    package func projectNearCenter(
        sinLatitude sinLat: Double, cosLatitude cosLat: Double, sinLongitudeOffset sinDLon: Double, cosLongitudeOffset cosDLon: Double
    ) -> (x: Double, y: Double) {
        let cosC = cosineOfDistance(sinLatitude: sinLat, cosLatitude: cosLat, cosLongitudeOffset: cosDLon)
        let u = 1 - cosC
        let k: Double
        if u < 5e-5 {
            let c2 = u * (2 + u * (1.0 / 3 + u * (4.0 / 45 + u * (1.0 / 35))))
            k = 1 + c2 * (1.0 / 6 + c2 * (7.0 / 360 + c2 * (31.0 / 15120)))
        } else {
            k = Self.scale(cosC)
        }
        return point(scale: k, sinLatitude: sinLat, cosLatitude: cosLat, sinLongitudeOffset: sinDLon, cosLongitudeOffset: cosDLon)
    }

    /// cos c for the point's angular distance c from the centre (clamped to [−1, 1]).
    @inlinable
    func cosineOfDistance(sinLatitude sinLat: Double, cosLatitude cosLat: Double, cosLongitudeOffset cosDLon: Double) -> Double {
        Swift.max(-1, Swift.min(1, sinLat0 * sinLat + cosLat0 * cosLat * cosDLon))
    }

    /// k = c / sin c from `acos` and `sin`, with its limit 1 at the centre.
    @inlinable
    static func scale(_ cosC: Double) -> Double {
        let c = Double.acos(cosC)
        return c < 1e-9 ? 1.0 : c / Double.sin(c)
    }

    /// The projected point for scale k.
    @inlinable
    func point(
        scale k: Double, sinLatitude sinLat: Double, cosLatitude cosLat: Double, sinLongitudeOffset sinDLon: Double, cosLongitudeOffset cosDLon: Double
    ) -> (x: Double, y: Double) {
        (Sphere.radius * k * cosLat * sinDLon, Sphere.radius * k * (cosLat0 * sinLat - sinLat0 * cosLat * cosDLon))
    }

    /// The coordinate projected to (x, y); longitude wrapped into [-180, 180].
    package func unproject(x: Double, y: Double) -> Coordinate {
        let rho = (x * x + y * y).squareRoot()
        if rho < 1e-9 { return center }
        let c = rho / Sphere.radius
        let sinC = Double.sin(c), cosC = Double.cos(c)
        let lat = Double.asin(Swift.max(-1, Swift.min(1, cosC * sinLat0 + y * sinC * cosLat0 / rho)))
        let lon = lon0 + Double.atan2(y: x * sinC, x: rho * cosLat0 * cosC - y * sinLat0 * sinC)
        return Coordinate(
            latitude: lat * Sphere.radiansToDegrees,
            longitude: Sphere.wrapLongitude(lon * Sphere.radiansToDegrees))
    }
}
