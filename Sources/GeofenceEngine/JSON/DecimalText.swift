/// Integers in decimal, written through a pointer: the line writers' hot path (`geofence
/// evaluate` writes a 13-digit time in every event line, `geofence contains` a row number in
/// every line).
///
/// Two digits a step from a table of the pairs "00" to "99", after counting the digits by
/// powers of ten: the first version counted and wrote a digit at a time, a division each,
/// which was a sixth of the event writer. The text is `String(value)`'s (tested).
enum DecimalText {
    /// Bytes of the longest text: an `Int64`'s sign and 19 digits, or a `UInt64`'s 20 digits.
    static let maximumBytes = 20

    /// "00", "01", …, "99", back to back.
    private static let pairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Writes `value` at `p`; returns the position after its last digit.
    /// - Complexity: O(digits).
    @inline(__always)
    static func put(_ value: UInt64, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var digits = 1
        var limit: UInt64 = 10
        while value >= limit {
            digits &+= 1
            if digits == 20 { break }  // 10¹⁹ ≤ value: the next power would not fit
            limit &*= 10
        }
        let table = pairs.utf8Start
        var v = value, q = p + digits
        while v >= 100 {
            let r = Int(truncatingIfNeeded: v % 100) &* 2
            v /= 100
            q -= 2
            q[0] = table[r]
            q[1] = table[r &+ 1]
        }
        if v >= 10 {
            let r = Int(truncatingIfNeeded: v) &* 2
            q[-2] = table[r]
            q[-1] = table[r &+ 1]
        } else {
            q[-1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v)
        }
        return p + digits
    }

    /// Writes `value` (a minus sign, then its magnitude) at `p`; returns the position after it.
    @inline(__always)
    static func put(_ value: Int64, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        guard value < 0 else { return put(UInt64(value), at: p) }
        p.pointee = UInt8(ascii: "-")
        return put(value.magnitude, at: p + 1)
    }
}
