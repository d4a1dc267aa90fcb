import RealModule
/// Great-circle maths on a sphere of the IUGG mean Earth radius.
///
/// Containment of a circle fence is decided by ``haversineTerm(_:_:)`` against
/// ``capThreshold(radius:)``, which is `distance <= radius` without the `asin`; every
/// containment path in the package (index, scan, benchmark baselines) uses these two
/// functions, so they agree to the bit.
@_spi(Engine) public enum Sphere {
    /// Mean Earth radius in metres (R1 of IUGG), the sphere every distance uses.
    @inlinable package static var radius: Double { 6_371_008.8 }
    /// Degrees to radians, computed as the C peers do (`M_PI / 180`).
    @inlinable package static var degreesToRadians: Double { Double.pi / 180.0 }
    /// Radians to degrees.
    @inlinable package static var radiansToDegrees: Double { 180.0 / Double.pi }

    /// The haversine term `a = hav(d / R)` between two points given in radians, with the
    /// cosine of the first latitude precomputed.
    ///
    /// - Complexity: O(1), two `sin` calls.
    @inlinable
    package static func haversineTerm(
        latitude1 lat1: Double, longitude1 lon1: Double, cosLatitude1 cos1: Double,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double
    ) -> Double {
        let sdp = Double.sin(0.5 * (lat1 - lat2))
        let sdl = Double.sin(0.5 * (lon1 - lon2))
        return sdp * sdp + cos1 * cos2 * sdl * sdl
    }

    /// `sin x` for |x| < 0.01 from its series to the fifth power, `x − x³/6 + x⁵/120`:
    /// truncation and rounding below 1e-15 of it (relative). The cap test's sines.
    /// - Complexity: O(1), no calls.
    @inlinable @inline(__always)
    package static func smallSine(_ x: Double) -> Double {
        let x2 = x * x
        return x * (1 - x2 * (1.0 / 6) * (1 - x2 * (1.0 / 20)))
    }

    /// The haversine term between two coordinates.
    @inlinable
    package static func haversineTerm(_ a: Coordinate, _ b: Coordinate) -> Double {
        let lat1 = a.latitude * degreesToRadians, lat2 = b.latitude * degreesToRadians
        return haversineTerm(
            latitude1: lat1, longitude1: a.longitude * degreesToRadians, cosLatitude1: Double.cos(lat1),
            latitude2: lat2, longitude2: b.longitude * degreesToRadians, cosLatitude2: Double.cos(lat2))
    }

    /// `sin²(r / 2R)`: a point is within `radius` metres of a centre exactly when the
    /// haversine term between them is at most this value.
    @inlinable
    package static func capThreshold(radius: Double) -> Double {
        let s = Double.sin(radius / (2 * Self.radius))
        return s * s
    }

    /// Great-circle distance in metres between two coordinates (haversine formula, which
    /// stays accurate for small distances).
    ///
    /// - Complexity: O(1).
    @inlinable
    package static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        distance(haversineTerm: haversineTerm(a, b))
    }

    /// Converts a haversine term into metres.
    @inlinable
    package static func distance(haversineTerm a: Double) -> Double {
        2 * Self.radius * Double.asin(Swift.min(1, a.squareRoot()))
    }

    /// The point reached from `start` after `distance` metres on initial bearing
    /// `bearing` (radians clockwise from north). Longitude is wrapped into [-180, 180].
    package static func destination(from start: Coordinate, distance: Double, bearing: Double) -> Coordinate {
        let delta = distance / Self.radius
        let lat1 = start.latitude * degreesToRadians, lon1 = start.longitude * degreesToRadians
        let sinLat2 = Double.sin(lat1) * Double.cos(delta) + Double.cos(lat1) * Double.sin(delta) * Double.cos(bearing)
        let lat2 = Double.asin(Swift.max(-1, Swift.min(1, sinLat2)))
        let y = Double.sin(bearing) * Double.sin(delta) * Double.cos(lat1)
        let x = Double.cos(delta) - Double.sin(lat1) * sinLat2
        let lon2 = lon1 + Double.atan2(y: y, x: x)
        return Coordinate(latitude: lat2 * radiansToDegrees, longitude: wrapLongitude(lon2 * radiansToDegrees))
    }

    /// `longitude` moved into [-180, 180) by whole turns (180 stays 180).
    @inlinable
    package static func wrapLongitude(_ longitude: Double) -> Double {
        if longitude >= -180 && longitude <= 180 { return longitude }
        var l = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if l < 0 { l += 360 }
        return l - 180
    }
}
