#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Correctly rounded decimal-to-double conversion for CSV fields, fast for the usual case.
///
/// Fields with at most 15 significant digits and a decimal exponent within ±22 (every GPS
/// coordinate written with up to 15 digits) take Clinger's fast path: the digits as an exact
/// integer, one multiplication or division by an exact power of ten, hence one correct
/// rounding. Anything else goes to the C library's `strtod`, which is correctly rounded too.
public enum DecimalParser {
    @usableFromInline
    static let powersOfTen: [Double] = (0...22).map { pow(10.0, Double($0)) }

    /// The value of the bytes `[start, end)`, or nil unless they are exactly a decimal number
    /// (optional sign, digits with an optional point, optional exponent). No NaN, no infinity.
    ///
    /// - Complexity: O(length), no allocation on the fast path.
    @inlinable
    public static func parse(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        var i = start
        guard i < end else { return nil }
        var negative = false
        if p[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if p[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0
        var significant = 0  // significant digits taken into the mantissa
        var exponent = 0  // decimal exponent to apply to the mantissa
        var sawDigit = false
        // Integer part.
        while i < end {
            let d = p[i] &- 0x30
            if d > 9 { break }
            sawDigit = true
            if mantissa != 0 || d != 0 {
                if significant < 19 { mantissa = mantissa &* 10 &+ UInt64(d); significant += 1 } else { exponent += 1 }
            }
            i += 1
        }
        if i < end && p[i] == UInt8(ascii: ".") {
            i += 1
            while i < end {
                let d = p[i] &- 0x30
                if d > 9 { break }
                sawDigit = true
                if mantissa != 0 || d != 0 {
                    if significant < 19 { mantissa = mantissa &* 10 &+ UInt64(d); significant += 1; exponent -= 1 }
                } else {
                    exponent -= 1
                }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < end && (p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E")) {
            i += 1
            var expNegative = false
            if i < end && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) {
                expNegative = p[i] == UInt8(ascii: "-")
                i += 1
            }
            var e = 0
            var expDigits = 0
            while i < end {
                let d = p[i] &- 0x30
                if d > 9 { break }
                if e < 100_000 { e = e * 10 + Int(d) }
                expDigits += 1
                i += 1
            }
            guard expDigits > 0 else { return nil }
            exponent += expNegative ? -e : e
        }
        guard i == end else { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if significant <= 15 && exponent >= -22 && exponent <= 22 {
            var v = Double(mantissa)  // exact: below 2^53
            v = exponent >= 0 ? v * powersOfTen[exponent] : v / powersOfTen[-exponent]
            return negative ? -v : v
        }
        return slowPath(p, start, end)
    }

    @usableFromInline
    static func slowPath(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        let n = end - start
        guard n < 512 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer -> Double? in
            for k in 0..<n { buffer[k] = CChar(bitPattern: p[start + k]) }
            buffer[n] = 0
            var endPointer: UnsafeMutablePointer<CChar>? = nil
            let v = strtod(buffer.baseAddress!, &endPointer)
            guard let endPointer, endPointer - buffer.baseAddress! == n else { return nil }
            return v
        }
    }

    /// Convenience for a whole string.
    public static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { b in b.baseAddress.flatMap { parse($0, 0, b.count) } }
    }
}
