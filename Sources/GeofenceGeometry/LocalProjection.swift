import RealModule
/// An azimuthal equidistant projection centred on one coordinate, in metres.
///
/// Distances and bearings from the centre are exact on the sphere; other distances are
/// distorted by well under 0.1 % within 50 km of the centre. It has no seam at the
/// antimeridian and works at the poles, which is why the distance from a fix to a polygon
/// edge is computed in it (the minimum enclosing circle uses the same projection, worked from
/// unit vectors: `MinimumEnclosingCircle.ProjectionFrame`).
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
    /// longitude offset (``longitudeOffset(_:)``) at hand too: the projection's arithmetic,
    /// after its trigonometry.
    @inlinable
    package func project(
        sinLatitude sinLat: Double, cosLatitude cosLat: Double, sinLongitudeOffset sinDLon: Double, cosLongitudeOffset cosDLon: Double
    ) -> (x: Double, y: Double) {
        let cosC = cosineOfDistance(sinLatitude: sinLat, cosLatitude: cosLat, cosLongitudeOffset: cosDLon)
        return point(scale: Self.scale(cosC), sinLatitude: sinLat, cosLatitude: cosLat, sinLongitudeOffset: sinDLon, cosLongitudeOffset: cosDLon)
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
