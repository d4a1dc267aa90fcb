import RealModule

extension Sphere {
    // The containment test of a circle fence in the engine's hot paths: whether a point's
    // haversine term to the centre is at most the circle's threshold (`sin²(r / 2R)`), the
    // answer `haversineTerm(…) <= threshold` gives, mostly without calling `sin` or `cos`.
    // Beside the estimate whose series it shares; inlined into the engine (`Sphere` is an
    // SPI-public type: a `package` type's members would not be).

    /// Whether the point (`lat1`, `lon1`, radians) lies within the circle centred at (`lat2`,
    /// `lon2`) whose threshold is `threshold`, given the centre's cosine and sine of latitude.
    ///
    /// For half-angle differences below 0.01 rad (about 60 km) the sines come from their series
    /// to the fifth power (truncation and rounding below 1e-15 of the term), and the point's
    /// cosine from the centre's by the second-order Taylor step
    /// `cos(φ₂ + d) ≈ cos φ₂ − d·(sin φ₂ + d·cos φ₂ / 2)` (error at most |d|³/6 plus a few
    /// roundings; times `cos φ₂ · sin²(Δλ/2)` it widens the margin). When that estimate is more
    /// than its margin from `threshold`, it is the answer; otherwise `cos` and `sin` decide.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package static func capHolds(
        _ threshold: Double, latitude1 lat1: Double, longitude1 lon1: Double,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double, sinLatitude2 sin2: Double
    ) -> Bool {
        capCount(
            threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2, sinLatitude2: sin2) == 1
    }

    /// ``capHolds(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:sinLatitude2:)`` as
    /// 1 or 0, for loops that add it to a count: the estimate's answer taken without a branch
    /// on it, the exact term behind a branch on "undecided" (rare, so predictable).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package static func capCount(
        _ threshold: Double, latitude1 lat1: Double, longitude1 lon1: Double,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double, sinLatitude2 sin2: Double
    ) -> Int {
        let estimate = capEstimate(
            threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2, sinLatitude2: sin2)
        if estimate > 1 {
            return capHoldsExactly(threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2)
                ? 1 : 0
        }
        return estimate
    }

    /// ``capCount(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:sinLatitude2:)`` for
    /// a point the plain squares left undecided (a lane of the two-lane squares that answered
    /// 2): the series, then the exact term, without the squares again.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package static func capCountPastSquares(
        _ threshold: Double, latitude1 lat1: Double, longitude1 lon1: Double,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double, sinLatitude2 sin2: Double
    ) -> Int {
        let series = capSeries(
            threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2, sinLatitude2: sin2)
        if series > 1 {
            return capHoldsExactly(threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2)
                ? 1 : 0
        }
        return series
    }

    /// ``capHolds(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:sinLatitude2:)``'s
    /// estimate alone, with no branch on inside or outside: 1 when it certifies the point inside, 0
    /// outside, 2 when it cannot decide (the point is within its margin of the edge, a
    /// half-difference of latitude or longitude is 0.01 rad or more, or a coordinate is not a
    /// number); the caller then asks ``capHolds(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:sinLatitude2:)``.
    /// For loops over many points and one circle, whose answers do not follow a pattern a
    /// branch predictor could learn. The plain squares (``capSquares(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:)``)
    /// answer first; only what they leave (points very near the edge) takes the series, behind
    /// a branch on "undecided", which is rare.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package static func capEstimate(
        _ threshold: Double, latitude1 lat1: Double, longitude1 lon1: Double,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double, sinLatitude2 sin2: Double
    ) -> Int {
        let squares = capSquares(threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2)
        if squares != 2 { return squares }
        return capSeries(
            threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2, sinLatitude2: sin2)
    }

    /// The cheapest estimate, as ``capEstimate(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:sinLatitude2:)``
    /// answers (1 inside, 0 outside, 2 undecided): `x² + cos²φ₂ · y²` for the half-differences
    /// x and y of latitude and longitude. In exact arithmetic it is off the haversine term
    /// `sin²x + cos φ₁ cos φ₂ sin²y` by at most `x⁴/3 + y⁴/3 + 2|x|·y²`, because `sin²t` lies
    /// in `[t² − t⁴/3, t²]` and `|cos φ₁ − cos φ₂| ≤ |φ₁ − φ₂| = 2|x|`; the margin adds that
    /// bound to the roundings the series' margin allows. Relative to the threshold the bound
    /// is about `2|x|`, the circle's angular radius: only points within that share of the edge
    /// are left to the series (a few millimetres for a circle of 100 m).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package static func capSquares(
        _ threshold: Double, latitude1 lat1: Double, longitude1 lon1: Double,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double
    ) -> Int {
        let x = 0.5 * (lat1 - lat2), y = 0.5 * (lon1 - lon2)
        let x2 = x * x, y2 = y * y
        let plain = x2 + (cos2 * cos2) * y2
        let bound = (x2 * x2 + y2 * y2) * (1.0 / 3) + 2 * abs(x) * y2
        // The bound widened for its own roundings; the series' relative 1e-12; and an absolute
        // share of y², for the cosines' roundings where cos φ₂ is near 0 (near the poles).
        let margin = bound * (1 + 1e-9) + 1e-12 * Swift.max(plain, threshold) + 1e-15 * y2 + 1e-300
        return decide(plain, threshold, margin: margin, x: x, y: y)
    }

    /// ``capSquares(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:)`` for two points
    /// at once, one a lane (0 outside, 1 inside, 2 undecided): the same operations in the same
    /// order, so each lane's answer is the one-point function's, bit for bit (`|x|` by clearing
    /// the sign bit, the comparisons as masks; a lane that is not a number is undecided either
    /// way). For a loop over the fixes one circle may hold, two lanes of SSE2 a step.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package static func capSquares(
        _ threshold: Double, latitudes lat1: SIMD2<Double>, longitudes lon1: SIMD2<Double>,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double
    ) -> SIMD2<Int64> {
        let x = 0.5 * (lat1 - lat2), y = 0.5 * (lon1 - lon2)
        let x2 = x * x, y2 = y * y
        let plain = x2 + (cos2 * cos2) * y2
        let signless = SIMD2<UInt64>(repeating: 0x7FFF_FFFF_FFFF_FFFF)
        let ax = unsafeBitCast(unsafeBitCast(x, to: SIMD2<UInt64>.self) & signless, to: SIMD2<Double>.self)
        let ay = unsafeBitCast(unsafeBitCast(y, to: SIMD2<UInt64>.self) & signless, to: SIMD2<Double>.self)
        let bound = (x2 * x2 + y2 * y2) * (1.0 / 3) + 2 * ax * y2
        let larger = plain.replacing(with: threshold, where: plain .< threshold)
        let margin = bound * (1 + 1e-9) + 1e-12 * larger + 1e-15 * y2 + 1e-300
        let inside = plain .< threshold - margin
        let outside = plain .> threshold + margin
        let decided = (inside .| outside) .& (ax .< 0.01) .& (ay .< 0.01)
        return SIMD2<Int64>(repeating: 2).replacing(with: 0, where: decided).replacing(with: 1, where: decided .& inside)
    }

    /// The series' estimate (see ``capHolds(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:sinLatitude2:)``),
    /// as ``capEstimate(_:latitude1:longitude1:latitude2:longitude2:cosLatitude2:sinLatitude2:)`` answers.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    package static func capSeries(
        _ threshold: Double, latitude1 lat1: Double, longitude1 lon1: Double,
        latitude2 lat2: Double, longitude2 lon2: Double, cosLatitude2 cos2: Double, sinLatitude2 sin2: Double
    ) -> Int {
        let x = 0.5 * (lat1 - lat2), y = 0.5 * (lon1 - lon2)
        let d = lat1 - lat2
        let cos1 = cos2 - d * (sin2 + 0.5 * d * cos2)
        let sx = smallSine(x), sy = smallSine(y)
        let sy2 = sy * sy
        let estimate = sx * sx + cos1 * cos2 * sy2
        let cosError = abs(d) * d * d * (1.0 / 6) + 1e-15
        let margin = 1e-12 * Swift.max(estimate, threshold) + cosError * cos2 * sy2 + 1e-300
        return decide(estimate, threshold, margin: margin, x: x, y: y)
    }

    /// An estimate's answer, without a branch: 1 when it is more than `margin` below
    /// `threshold`, 0 when more than `margin` above, 2 when within it, or when a half-difference
    /// `x` or `y` is 0.01 rad or more (the estimates' series and bounds hold below that), or
    /// when anything is not a number (every comparison false).
    @inlinable @inline(__always)
    static func decide(_ estimate: Double, _ threshold: Double, margin: Double, x: Double, y: Double) -> Int {
        let inside = estimate < threshold - margin ? 1 : 0
        let outside = estimate > threshold + margin ? 1 : 0
        let near = Swift.max(abs(x), abs(y)) < 0.01 ? 1 : 0
        return (inside | outside) & near != 0 ? inside : 2
    }

    /// The undecided case: the term with `cos` and `sin` (kept out of line: rare).
    @usableFromInline @inline(never)
    static func capHoldsExactly(
        _ threshold: Double, latitude1 lat1: Double, longitude1 lon1: Double, latitude2 lat2: Double, longitude2 lon2: Double,
        cosLatitude2 cos2: Double
    ) -> Bool {
        haversineTerm(
            latitude1: lat1, longitude1: lon1, cosLatitude1: Double.cos(lat1),
            latitude2: lat2, longitude2: lon2, cosLatitude2: cos2) <= threshold
    }
}
