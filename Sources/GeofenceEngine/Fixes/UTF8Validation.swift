/// UTF-8 validity of the byte ranges the engine keeps as text (device ids).
///
/// An id that is not valid UTF-8 is rejected, not repaired: `String(decoding:)` would turn
/// every invalid byte into U+FFFD, so `a\xFF` and `a\xFE` would print as the same id while
/// being evaluated as two devices.
package enum UTF8Validation {
    /// True when `p[start ..< end]` is valid UTF-8.
    ///
    /// ASCII, the usual id, is decided eight bytes at a time; anything else goes to the
    /// standard library's validator (``isValidSlowly(_:_:_:)``).
    /// - Complexity: O(end - start), no allocation for ASCII.
    @inline(__always)
    static func isValid(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        var i = start
        while i &+ 8 <= end {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return isValidSlowly(p, start, end)
            }
            i &+= 8
        }
        while i < end {
            if p[i] >= 0x80 { return isValidSlowly(p, start, end) }
            i &+= 1
        }
        return true
    }

    /// The standard library's answer (the twin of the ASCII shortcut).
    static func isValidSlowly(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        String(validating: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self) != nil
    }

    /// The bytes as printable text for a message: ASCII as is (quotes and backslashes
    /// escaped), every other byte as `\xNN`, at most `limit` bytes.
    package static func escaped(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int = 64) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for b in bytes.prefix(limit) {
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                out += [UInt8(ascii: "\\"), b]
            } else if b >= 0x20 && b < 0x7F {
                out.append(b)
            } else {
                out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), digits[Int(b >> 4)], digits[Int(b & 15)]]
            }
        }
        if bytes.count > limit { out += Array("…".utf8) }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }
}
