#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Correctly rounded decimal-to-double conversion for CSV fields, fast for the usual case.
///
/// Fields whose digits form an integer below 2^53 with a decimal exponent within ±22 (every
/// GPS coordinate written with up to 15 significant digits) take Clinger's fast path: the digits as an exact
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
        let (value, stop) = scan(p, start, end)
        return stop == end ? value : nil
    }

    /// The decimal number that starts at `start` and the index of the first byte after it
    /// (a field separator, say): nil when no number starts there. Same rules and rounding as
    /// ``parse(_:_:_:)``, which is `scan` that must stop at `end`.
    ///
    /// - Complexity: O(length of the number), no allocation on the fast path.
    @inlinable
    public static func scan(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (Double?, Int) {
        var i = start
        guard i < end else { return (nil, i) }
        var negative = false
        if p[i] == UInt8(ascii: "-") { negative = true; i &+= 1 } else if p[i] == UInt8(ascii: "+") { i &+= 1 }
        // Every digit, integer and fraction, into one integer; leading zeros cost nothing.
        var mantissa: UInt64 = 0
        let firstDigit = i
        while i < end {
            let d = p[i] &- 0x30
            if d > 9 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i &+= 1
        }
        var digits = i &- firstDigit
        var exponent = 0
        if i < end && p[i] == UInt8(ascii: ".") {
            i &+= 1
            let firstFraction = i
            while i < end {
                let d = p[i] &- 0x30
                if d > 9 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i &+= 1
            }
            exponent = firstFraction &- i
            digits &+= i &- firstFraction
        }
        guard digits > 0 else { return (nil, i) }
        if i < end && (p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E")) {
            i &+= 1
            var expNegative = false
            if i < end && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) {
                expNegative = p[i] == UInt8(ascii: "-")
                i &+= 1
            }
            var e = 0
            let firstExponentDigit = i
            while i < end {
                let d = p[i] &- 0x30
                if d > 9 { break }
                if e < 100_000 { e = e &* 10 &+ Int(d) }
                i &+= 1
            }
            guard i > firstExponentDigit else { return (nil, i) }
            exponent &+= expNegative ? -e : e
        }
        // Clinger's fast path: an exact integer below 2^53 (no digit lost: at most 19 digits
        // were read, so no wrap-around) and an exactly representable power of ten.
        if digits <= 19 && mantissa < (1 << 53) && exponent >= -22 && exponent <= 22 {
            var v = Double(mantissa)
            v = exponent >= 0 ? v * powersOfTen[exponent] : v / powersOfTen[-exponent]
            return (negative ? -v : v, i)
        }
        return (slowPath(p, start, i), i)
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
