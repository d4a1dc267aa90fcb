/// Correctly rounded decimal-to-double conversion for CSV fields, fast for the usual case.
///
/// Fields whose digits form an integer below 2^53 with a decimal exponent within ±22 (every
/// GPS coordinate written with up to 15 significant digits) take Clinger's fast path: the digits as an exact
/// integer, one multiplication or division by an exact power of ten, hence one correct
/// rounding. Anything else goes to the C library's `strtod`, which is correctly rounded too.
package enum DecimalParser {
    /// 10^e for e in 0...22, all exact doubles. A switch of literals, not a global array:
    /// a global is reached through a lazy-initialisation check on every call.
    @inlinable @inline(__always)
    static func powerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// The value of the bytes `[start, end)`, or nil unless they are exactly a decimal number
    /// (optional sign, digits with an optional point, optional exponent). No NaN, no infinity.
    ///
    /// - Complexity: O(length), no allocation on the fast path.
    @inlinable
    package static func parse(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        let (value, stop) = scan(p, start, end)
        return stop == end ? value : nil
    }

    /// The decimal number that starts at `start` and the index of the first byte after it
    /// (a field separator, say): nil when no number starts there. Same rules and rounding as
    /// ``parse(_:_:_:)``, which is `scan` that must stop at `end`.
    ///
    /// - Complexity: O(length of the number), no allocation on the fast path.
    ///
    /// - Parameter readable: how far bytes may be loaded (at least `end`); when bytes after
    ///   `end` are readable, the fraction's digits are read eight at a time (the byte at
    ///   `end` must then not be a digit, as a separator or line break is not).
    @inlinable
    package static func scan(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, readable: Int? = nil) -> (Double?, Int) {
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
            let limit = readable ?? end
            // Eight bytes at a time while a whole word can be loaded and the mantissa cannot
            // overflow (at most 19 digits in all).
            while i &+ 8 <= limit && digits &+ (i &- firstFraction) <= 11 {
                let n = eightDigits(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self), into: &mantissa)
                i &+= n
                if n < 8 { break }
            }
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
            v = exponent >= 0 ? v * powerOfTen(exponent) : v / powerOfTen(-exponent)
            return (negative ? -v : v, i)
        }
        return (slowPath(p, start, i), i)
    }

    /// Reads the leading decimal digits of the eight bytes in `word` (first byte lowest) into
    /// `mantissa` (`mantissa × 10^n + digits`) and returns n, 0 to 8.
    ///
    /// The digits are shifted to the top of the word (zeros before them change nothing), then
    /// combined pairwise in three multiplications.
    @inlinable @inline(__always)
    static func eightDigits(_ word: UInt64, into mantissa: inout UInt64) -> Int {
        let values = word &- 0x3030_3030_3030_3030
        // High bit of a byte set when it is not a digit: below '0' wraps to ≥ 0xD0, above
        // '9' reaches 0x80 once 0x76 is added.
        let notDigit = (values | (values &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
        let n = notDigit == 0 ? 8 : notDigit.trailingZeroBitCount >> 3
        guard n > 0 else { return 0 }
        var v = n == 8 ? values : values << UInt64((8 &- n) << 3)
        v = (v &* 10) &+ (v >> 8)
        v = (((v & 0x0000_00FF_0000_00FF) &* (100 &+ (1_000_000 << 32)))
            &+ (((v >> 16) & 0x0000_00FF_0000_00FF) &* (1 &+ (10_000 << 32)))) >> 32
        mantissa = mantissa &* smallPowerOfTen(n) &+ v
        return n
    }

    /// 10^n for n in 0...8, from a vector constant indexed without a branch (the switch of
    /// ``powerOfTen(_:)`` is a jump table: an indirect branch that mispredicts as n changes,
    /// measured a fifth of the eight-digit step).
    @inlinable @inline(__always)
    static func smallPowerOfTen(_ n: Int) -> UInt64 {
        let table: SIMD16<UInt32> = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 0, 0, 0, 0, 0, 0, 0]
        return UInt64(table[n & 15])
    }

    @usableFromInline
    static func slowPath(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        let n = end - start
        guard n < 512 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buffer -> Double? in
            for k in 0..<n { buffer[k] = CChar(bitPattern: p[start + k]) }
            buffer[n] = 0
            let parsed = Platform.parseDouble(buffer.baseAddress!)
            return parsed.consumed == n ? parsed.value : nil
        }
    }

    /// Convenience for a whole string.
    package static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { b in b.baseAddress.flatMap { parse($0, 0, b.count) } }
    }
}
