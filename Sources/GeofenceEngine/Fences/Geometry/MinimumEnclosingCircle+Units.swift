import GeofenceGEOS
@_spi(Engine) import GeofenceGeometry

extension MinimumEnclosingCircle {
    /// Unit vectors of the coordinates near one reference coordinate, without a trigonometric
    /// call per coordinate: the sine and cosine of a latitude (and of a longitude) come from
    /// the reference's, by the angle-sum formulas, with those of the small difference from
    /// their series.
    ///
    /// A component is within 8e-16 of the true one (the C library's `sincos` gives about
    /// 4e-16): the reference's sines and cosines are the C library's, the difference's series
    /// leave out terms below 1e-20, and the sums and the product round twice or three times.
    struct NearbyUnits {
        /// The reference (latitude, longitude) in degrees, and the sines and cosines of both.
        let reference: SIMD2<Double>
        let sines: SIMD2<Double>
        let cosines: SIMD2<Double>

        init(latitude: Double, longitude: Double) {
            reference = SIMD2(latitude, longitude)
            let (sinLatitude, cosLatitude) = CMath.sinCos(latitude * Sphere.degreesToRadians)
            let (sinLongitude, cosLongitude) = CMath.sinCos(longitude * Sphere.degreesToRadians)
            sines = SIMD2(sinLatitude, sinLongitude)
            cosines = SIMD2(cosLatitude, cosLongitude)
        }

        /// The unit vector (x, y, z) of the coordinate and its latitude in radians (w), or nil
        /// when its latitude or longitude is 0.01 rad (0.57°) or more from the reference's.
        /// - Complexity: O(1), no call.
        @inline(__always)
        func unit(latitude: Double, longitude: Double) -> SIMD4<Double>? {
            let d = (SIMD2(latitude, longitude) - reference) * Sphere.degreesToRadians
            guard abs(d.x) < 0.01 && abs(d.y) < 0.01 else { return nil }
            let d2: SIMD2<Double> = d * d
            // 1 − cos d and sin d; the first terms left out are d⁸/40320 and d⁹/362880.
            let hInner: SIMD2<Double> = 1.0 / 24 - d2 * (1.0 / 720)
            let h: SIMD2<Double> = d2 * (0.5 - d2 * hInner)
            let sInner: SIMD2<Double> = 1.0 / 120 - d2 * (1.0 / 5040)
            let s: SIMD2<Double> = d * (1 - d2 * (1.0 / 6 - d2 * sInner))
            let sine: SIMD2<Double> = sines - sines * h + cosines * s
            let cosine: SIMD2<Double> = cosines - cosines * h - sines * s
            return SIMD4(cosine.x * cosine.y, cosine.x * sine.y, sine.x, latitude * Sphere.degreesToRadians)
        }

        /// The unit vector and latitude in radians of any coordinate, from the C library.
        @inline(__always)
        static func exactUnit(latitude: Double, longitude: Double) -> SIMD4<Double> {
            let lat = latitude * Sphere.degreesToRadians
            let (sinLat, cosLat) = CMath.sinCos(lat)
            let (sinLon, cosLon) = CMath.sinCos(longitude * Sphere.degreesToRadians)
            return SIMD4(cosLat * cosLon, cosLat * sinLon, sinLat, lat)
        }
    }
}
