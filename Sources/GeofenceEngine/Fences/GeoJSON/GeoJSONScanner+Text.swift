/// Strings decoded, and values rewritten as compact JSON, from a checked text.
extension GeoJSONScanner {
    /// The string's content with its escapes decoded, as UTF-8 (the token was checked when read).
    func decoded(_ token: StringToken) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(token.end &- token.start)
        appendDecoded(token, to: &out)
        return out
    }

    /// The string's content as a `String`.
    func text(_ token: StringToken) -> String {
        if !token.escaped {
            return String(decoding: UnsafeBufferPointer(start: base + token.start, count: token.end &- token.start), as: UTF8.self)
        }
        return String(decoding: decoded(token), as: UTF8.self)
    }

    /// Appends the decoded content of a checked string.
    func appendDecoded(_ token: StringToken, to out: inout [UInt8]) {
        var k = token.start
        while k < token.end {
            let b = base[k]
            guard b == 0x5C else {
                out.append(b)
                k &+= 1
                continue
            }
            let e = base[k &+ 1]
            k &+= 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(k)
                k &+= 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    scalar = 0x10000 &+ ((scalar &- 0xD800) << 10) &+ (hex(k &+ 2) &- 0xDC00)
                    k &+= 6
                }
                append(scalar: scalar, to: &out)
            default: out.append(e)  // " \ /
            }
        }
    }

    /// The value of four (checked) hex digits at `k`.
    private func hex(_ k: Int) -> UInt32 {
        var v: UInt32 = 0
        for j in 0..<4 {
            let b = base[k &+ j]
            v = v << 4 | UInt32(b <= 0x39 ? b &- 0x30 : (b | 0x20) &- 0x61 &+ 10)
        }
        return v
    }

    /// Appends a scalar as UTF-8.
    private func append(scalar v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | v >> 6)); out.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | v >> 12)); out.append(UInt8(0x80 | (v >> 6) & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        default:
            out.append(UInt8(0xF0 | v >> 18)); out.append(UInt8(0x80 | (v >> 12) & 0x3F))
            out.append(UInt8(0x80 | (v >> 6) & 0x3F)); out.append(UInt8(0x80 | v & 0x3F))
        }
    }

    /// Appends the string as ``JSONWriter`` writes it: quotes, backslashes and control
    /// characters escaped, everything else as UTF-8.
    func appendCompact(_ token: StringToken, to out: inout [UInt8]) {
        if !token.escaped {
            // Raw content without escapes holds no quote, backslash or control character.
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: base + token.start, count: token.end &- token.start))
            out.append(UInt8(ascii: "\""))
            return
        }
        decoded(token).withUnsafeBufferPointer { JSONWriter.writeString(bytes: $0, to: &out) }
    }

    /// Checks one value and appends it as compact JSON (``JSONWriter``'s form: no whitespace,
    /// strings re-escaped, number literals and member order kept).
    mutating func writeValue(depth: Int, to out: inout [UInt8]) throws(JSONSyntaxError) {
        guard i < end else { throw fail() }
        switch base[i] {
        case UInt8(ascii: "\""): appendCompact(try string(), to: &out)
        case UInt8(ascii: "{"):
            out.append(UInt8(ascii: "{"))
            if try !enter(depth: depth &+ 1, close: UInt8(ascii: "}")) {
                repeat {
                    let name = try memberName()
                    appendCompact(name, to: &out)
                    out.append(UInt8(ascii: ":"))
                    try writeValue(depth: depth &+ 1, to: &out)
                    skipWhitespace()
                    if i < end && base[i] == UInt8(ascii: ",") { out.append(UInt8(ascii: ",")) }
                } while try separator(close: UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            out.append(UInt8(ascii: "["))
            if try !enter(depth: depth &+ 1, close: UInt8(ascii: "]")) {
                repeat {
                    skipWhitespace()
                    try writeValue(depth: depth &+ 1, to: &out)
                    skipWhitespace()
                    if i < end && base[i] == UInt8(ascii: ",") { out.append(UInt8(ascii: ",")) }
                } while try separator(close: UInt8(ascii: "]"))
            }
            out.append(UInt8(ascii: "]"))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let literal = try number()
            out.append(contentsOf: UnsafeBufferPointer(start: base + literal.lowerBound, count: literal.count))
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            let start = i
            try literal()
            out.append(contentsOf: UnsafeBufferPointer(start: base + start, count: i &- start))
        default: throw fail()
        }
    }

    /// The compact JSON of the (checked) value in `range`, as text: for messages.
    func compactText(_ range: Range<Int>, depth: Int) -> String {
        var copy = GeoJSONScanner(base: base, from: range.lowerBound, end: range.upperBound)
        var out: [UInt8] = []
        try? copy.writeValue(depth: depth, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
