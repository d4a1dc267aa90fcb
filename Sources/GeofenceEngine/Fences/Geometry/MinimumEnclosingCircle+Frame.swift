import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

extension MinimumEnclosingCircle {
    /// The azimuthal equidistant projection the circle is found in, worked from unit vectors:
    /// a vertex's projected coordinates are its vector's components along the centre's east
    /// and north directions, scaled by c / sin c (c its angular distance from the centre), in
    /// metres. The same projection as `LocalProjection` (which takes coordinates and needs
    /// the sine and cosine of each longitude's offset from the centre), without a
    /// trigonometric call per point.
    struct ProjectionFrame {
        /// The centre's unit vector, and the unit vectors east and north of it.
        let center: SIMD3<Double>
        let east: SIMD3<Double>
        let north: SIMD3<Double>

        /// The frame at `center`, a unit vector. At a pole, east is that of longitude 0.
        init(center m: SIMD3<Double>) {
            center = m
            let cosLatitude = (m.x * m.x + m.y * m.y).squareRoot(), sinLatitude = m.z
            let (cosLongitude, sinLongitude) = cosLatitude > 0 ? (m.x / cosLatitude, m.y / cosLatitude) : (1.0, 0.0)
            east = SIMD3(-sinLongitude, cosLongitude, 0)
            north = SIMD3(-sinLatitude * cosLongitude, -sinLatitude * sinLongitude, cosLatitude)
        }

        /// The projected point, in metres, of the unit vector `(u.x, u.y, u.z)`.
        ///
        /// With s = sin c the length of the vector's part across the centre, the scale
        /// c / sin c = asin(s) / s comes from its series
        /// 1 + s²/6 + 3s⁴/40 + 5s⁶/112 + 35s⁸/1152 within 0.01 rad (64 km) of the centre,
        /// where the terms left out are below 1e-21 of it; farther, from `atan2`.
        /// - Complexity: O(1), no call within 64 km.
        @inline(__always)
        func project(_ u: SIMD4<Double>) -> SIMD2<Double> {
            let x = u.x * east.x + u.y * east.y
            let y = u.x * north.x + u.y * north.y + u.z * north.z
            let cosC = u.x * center.x + u.y * center.y + u.z * center.z
            let s2 = x * x + y * y
            let k: Double
            if s2 < 1e-4 && cosC > 0 {
                k = 1 + s2 * (1.0 / 6 + s2 * (3.0 / 40 + s2 * (5.0 / 112 + s2 * (35.0 / 1152))))
            } else {
                let s = s2.squareRoot()
                k = s > 0 ? Double.atan2(y: s, x: cosC) / s : 1
            }
            return SIMD2(x, y) * (Sphere.radius * k)
        }

        /// The coordinate projected to (x, y); longitude wrapped into [-180, 180].
        func unproject(x: Double, y: Double) -> Coordinate {
            let rho = (x * x + y * y).squareRoot()
            var q = center
            if rho >= 1e-9 {
                let (sinC, cosC) = CMath.sinCos(rho / Sphere.radius)
                q = cosC * center + (sinC / rho) * (x * east + y * north)
            }
            let latitude = Double.atan2(y: q.z, x: (q.x * q.x + q.y * q.y).squareRoot())
            let longitude = Double.atan2(y: q.y, x: q.x)
            return Coordinate(
                latitude: latitude * Sphere.radiansToDegrees,
                longitude: Sphere.wrapLongitude(longitude * Sphere.radiansToDegrees))
        }
    }
}
