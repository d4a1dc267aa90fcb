/// Numbers read and converted in one pass: the coordinates' path.
extension GeoJSONScanner {
    /// Reads a number (the position at its first byte): its literal's range and its value as
    /// JSON values give it (``JSONNumber/parse(_:)-5ct5m``: correctly rounded; nil for a
    /// literal of 400 bytes or more).
    ///
    /// The digits are read once into a 64-bit integer; up to 19 significant digits with a
    /// power of ten within ±22 are converted exactly here (Clinger's fast path, or
    /// ``exactQuotient(_:_:)`` for the 16 to 19 digit fractions of coordinates, which the C
    /// library would otherwise take a slow path for); anything else goes to `strtod`.
    /// - Complexity: O(length), no allocation unless `strtod` is called.
    @inline(__always)
    mutating func numberAndValue() throws(JSONSyntaxError) -> (literal: Range<Int>, value: Double?) {
        let start = i
        var negative = false
        if i < end && base[i] == UInt8(ascii: "-") { negative = true; i &+= 1 }
        guard i < end, base[i] &- 0x30 <= 9 else { throw fail(start) }
        var mantissa: UInt64 = 0, digits = 0
        if base[i] == UInt8(ascii: "0") {
            i &+= 1
        } else {
            while i < end {
                let d = base[i] &- 0x30
                if d > 9 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits &+= 1
                i &+= 1
            }
        }
        var exponent = 0
        if i < end && base[i] == UInt8(ascii: ".") {
            i &+= 1
            let first = i
            while i < end {
                // Eight digits at a time once the digits are significant, while a whole word
                // can be loaded and the mantissa cannot overflow (at most 19 digits in all).
                if mantissa != 0 && digits <= 11 && i &+ 8 <= end {
                    let n = DecimalParser.eightDigits(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self), into: &mantissa)
                    digits &+= n
                    i &+= n
                    if n < 8 { break }
                    continue
                }
                let d = base[i] &- 0x30
                if d > 9 { break }
                // Leading zeros of a fraction (0.000…) are not significant digits.
                if mantissa != 0 || d != 0 { digits &+= 1 }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i &+= 1
            }
            guard i > first else { throw fail(start) }
            exponent = first &- i
        }
        if i < end && (base[i] | 0x20) == UInt8(ascii: "e") {
            i &+= 1
            var expNegative = false
            if i < end && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) {
                expNegative = base[i] == UInt8(ascii: "-")
                i &+= 1
            }
            let first = i
            var e = 0
            while i < end {
                let d = base[i] &- 0x30
                if d > 9 { break }
                if e < 100_000 { e = e &* 10 &+ Int(d) }
                i &+= 1
            }
            guard i > first else { throw fail(start) }
            exponent &+= expNegative ? -e : e
        }
        let literal = start..<i
        guard literal.count < 400 else { return (literal, nil) }
        if digits <= 19 {
            if mantissa == 0 { return (literal, negative ? -0.0 : 0.0) }
            if mantissa < (1 << 53) && exponent >= -22 && exponent <= 22 {
                var v = Double(mantissa)
                v = exponent >= 0 ? v * DecimalParser.powerOfTen(exponent) : v / DecimalParser.powerOfTen(-exponent)
                return (literal, negative ? -v : v)
            }
            if exponent < 0 && exponent >= -19 {
                let v = Self.exactQuotient(mantissa, -exponent)
                return (literal, negative ? -v : v)
            }
        }
        return (literal, DecimalParser.slowPath(base, start, i))
    }

    /// `m / 10^k`, correctly rounded (ties to even), for `m > 0` and `1 ≤ k ≤ 19`.
    ///
    /// Exact long division in base 2⁶⁴: the quotient's integer part, then 64 fraction bits at a
    /// time until it holds at least 55 significant bits, and whether a remainder is left; the
    /// 53-bit significand is rounded from those bits with the remainder as the sticky bit.
    /// (The value is at least 10⁻¹⁹, far from the subnormals and from overflow.)
    /// - Complexity: at most three 128-by-64-bit divisions.
    static func exactQuotient(_ m: UInt64, _ k: Int) -> Double {
        let d = UInt64(DecimalParser.powerOfTen(k))
        // The quotient as hi·2⁶⁴ + lo, scaled by 2^scale, with the remainder r of the last step.
        var hi = m / d, r = m % d
        var (lo, rest) = d.dividingFullWidth((high: r, low: 0))
        r = rest
        var scale = -64
        while hi == 0 && lo < (1 << 55) {
            hi = lo
            (lo, rest) = d.dividingFullWidth((high: r, low: 0))
            r = rest
            scale -= 64
        }
        let x = UInt128(hi) << 64 | UInt128(lo)
        let shift = 127 - x.leadingZeroBitCount - 52  // bits below the significand, at least 3
        var significand = UInt64(truncatingIfNeeded: x >> shift)
        let roundBit = (x >> (shift - 1)) & 1 == 1
        let sticky = r != 0 || x & ((1 << (shift - 1)) - 1) != 0
        var exponent = shift + scale
        if roundBit && (sticky || significand & 1 == 1) {
            significand += 1
            if significand == 1 << 53 { significand >>= 1; exponent += 1 }
        }
        return Double(sign: .plus, exponent: exponent, significand: Double(significand))
    }
}
