/// The JSON text at this position is not valid (the message comes from ``JSONParser``, which
/// reports the first error of a text with its line and column).
struct JSONSyntaxError: Error {
    var position: Int
}

/// A strict JSON reader over mapped bytes that keeps nothing unless asked: the fence
/// decoder's cursor.
///
/// It accepts exactly what ``JSONParser`` accepts (RFC 8259: no trailing commas, comments,
/// NaN or invalid UTF-8; at most ``JSONParser/maximumDepth`` levels of nesting, counted from
/// the top of the document), so a text it rejects is reported through `JSONParser.validate`
/// with the same message as before. Values the engine does not use are checked and skipped;
/// nothing is allocated per value.
struct GeoJSONScanner {
    let base: UnsafePointer<UInt8>
    /// One past the last byte that may be read.
    let end: Int
    /// The current position.
    var i: Int

    init(base: UnsafePointer<UInt8>, from: Int, end: Int) {
        self.base = base
        self.end = end
        i = from
    }

    /// A string's raw content `[start, end)` between its quotes, and whether it holds escapes.
    struct StringToken {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    @inline(__always)
    func fail(_ at: Int? = nil) -> JSONSyntaxError { JSONSyntaxError(position: at ?? i) }

    /// The byte at the position, or nil at the end.
    @inline(__always)
    var current: UInt8? { i < end ? base[i] : nil }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < end {
            let b = base[i]
            guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
            i &+= 1
        }
    }

    /// Consumes `byte` after optional whitespace, or fails.
    @inline(__always)
    mutating func expect(_ byte: UInt8) throws(JSONSyntaxError) {
        skipWhitespace()
        guard i < end, base[i] == byte else { throw fail() }
        i &+= 1
    }

    /// After a member or element: true for `,` (another follows), false for `close`.
    @inline(__always)
    mutating func separator(close: UInt8) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard i < end else { throw fail() }
        let b = base[i]
        i &+= 1
        if b == UInt8(ascii: ",") { return true }
        if b == close { return false }
        throw fail(i &- 1)
    }

    /// Enters an array or object at the position (which holds `[` or `{`): true when it is
    /// empty (and then already left). `depth` is the nesting of the container, 1 for the root.
    @inline(__always)
    mutating func enter(depth: Int, close: UInt8) throws(JSONSyntaxError) -> Bool {
        if depth > JSONParser.maximumDepth { throw fail() }
        i &+= 1
        skipWhitespace()
        if i < end && base[i] == close { i &+= 1; return true }
        return false
    }

    /// Reads an object member's name and the colon after it; the position is then at the value.
    @inline(__always)
    mutating func memberName() throws(JSONSyntaxError) -> StringToken {
        skipWhitespace()
        guard i < end, base[i] == UInt8(ascii: "\"") else { throw fail() }
        let name = try string()
        try expect(UInt8(ascii: ":"))
        skipWhitespace()
        return name
    }

    /// Reads a string (the position at its opening quote), checking its escapes and UTF-8.
    mutating func string() throws(JSONSyntaxError) -> StringToken {
        i &+= 1
        let start = i
        var escaped = false
        while true {
            // Plain ASCII runs first.
            while i < end {
                let b = base[i]
                if b < 0x20 || b == 0x22 || b == 0x5C || b >= 0x80 { break }
                i &+= 1
            }
            guard i < end else { throw fail() }
            let b = base[i]
            if b == 0x22 {
                i &+= 1
                return StringToken(start: start, end: i &- 1, escaped: escaped)
            }
            if b < 0x20 { throw fail() }
            if b == 0x5C {
                escaped = true
                try escape()
            } else {
                try utf8Sequence()
            }
        }
    }

    /// One escape (the position at its backslash).
    private mutating func escape() throws(JSONSyntaxError) {
        guard i &+ 1 < end else { throw fail() }
        let e = base[i &+ 1]
        i &+= 2
        switch e {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: return
        case 0x75:
            let high = try hex4()
            if high >= 0xD800 && high <= 0xDBFF {
                guard i &+ 1 < end, base[i] == 0x5C, base[i &+ 1] == 0x75 else { throw fail() }
                i &+= 2
                let low = try hex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw fail() }
            } else if high >= 0xDC00 && high <= 0xDFFF {
                throw fail()
            }
        default: throw fail()
        }
    }

    /// Four hex digits of a `\u` escape.
    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard i &+ 4 <= end else { throw fail() }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = base[i]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b &- 0x30)
            case 0x41...0x46: d = UInt32(b &- 0x41 &+ 10)
            case 0x61...0x66: d = UInt32(b &- 0x61 &+ 10)
            default: throw fail()
            }
            v = v << 4 | d
            i &+= 1
        }
        return v
    }

    /// One multi-byte UTF-8 sequence (Unicode's well-formed table: no overlong forms, no
    /// surrogates, nothing above U+10FFFF).
    private mutating func utf8Sequence() throws(JSONSyntaxError) {
        let b0 = base[i]
        @inline(__always) func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i &+ k < end && base[i &+ k] >= low && base[i &+ k] <= high
        }
        let length: Int
        switch b0 {
        case 0xC2...0xDF: guard continuation(1) else { throw fail() }; length = 2
        case 0xE0: guard continuation(1, 0xA0), continuation(2) else { throw fail() }; length = 3
        case 0xE1...0xEC, 0xEE...0xEF: guard continuation(1), continuation(2) else { throw fail() }; length = 3
        case 0xED: guard continuation(1, 0x80, 0x9F), continuation(2) else { throw fail() }; length = 3
        case 0xF0: guard continuation(1, 0x90), continuation(2), continuation(3) else { throw fail() }; length = 4
        case 0xF1...0xF3: guard continuation(1), continuation(2), continuation(3) else { throw fail() }; length = 4
        case 0xF4: guard continuation(1, 0x80, 0x8F), continuation(2), continuation(3) else { throw fail() }; length = 4
        default: throw fail()
        }
        i &+= length
    }

    /// Reads a number (the position at its first byte) and returns its literal's range.
    @inline(__always)
    mutating func number() throws(JSONSyntaxError) -> Range<Int> {
        let start = i
        @inline(__always) func digit() -> Bool { i < end && base[i] &- 0x30 <= 9 }
        if i < end && base[i] == UInt8(ascii: "-") { i &+= 1 }
        guard digit() else { throw fail(start) }
        if base[i] == UInt8(ascii: "0") {
            i &+= 1
        } else {
            while digit() { i &+= 1 }
        }
        if i < end && base[i] == UInt8(ascii: ".") {
            i &+= 1
            guard digit() else { throw fail(start) }
            while digit() { i &+= 1 }
        }
        if i < end && (base[i] | 0x20) == UInt8(ascii: "e") {
            i &+= 1
            if i < end && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) { i &+= 1 }
            guard digit() else { throw fail(start) }
            while digit() { i &+= 1 }
        }
        return start..<i
    }

    /// The value of a number literal as JSON values give it (``JSONNumber/parse(_:)-5ct5m``):
    /// correctly rounded, nil for a literal of 400 bytes or more.
    @inline(__always)
    func numberValue(_ literal: Range<Int>) -> Double? {
        guard literal.count < 400 else { return nil }
        return DecimalParser.scan(base, literal.lowerBound, literal.upperBound).0
    }

    /// Reads `true`, `false` or `null` (the position at its first byte).
    mutating func literal() throws(JSONSyntaxError) {
        let word: StaticString
        switch base[i] {
        case UInt8(ascii: "t"): word = "true"
        case UInt8(ascii: "f"): word = "false"
        default: word = "null"
        }
        let n = word.utf8CodeUnitCount
        guard i &+ n <= end else { throw fail() }
        for k in 0..<n where base[i &+ k] != word.utf8Start[k] { throw fail() }
        i &+= n
    }

    /// Checks and skips one value (the position at its first byte, whitespace skipped).
    /// `depth` is the nesting of the value's container.
    mutating func skipValue(depth: Int) throws(JSONSyntaxError) {
        guard i < end else { throw fail() }
        switch base[i] {
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "{"):
            if try enter(depth: depth &+ 1, close: UInt8(ascii: "}")) { return }
            repeat {
                _ = try memberName()
                try skipValue(depth: depth &+ 1)
            } while try separator(close: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            if try enter(depth: depth &+ 1, close: UInt8(ascii: "]")) { return }
            repeat {
                skipWhitespace()
                try skipValue(depth: depth &+ 1)
            } while try separator(close: UInt8(ascii: "]"))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): try literal()
        default: throw fail()
        }
    }

    /// True when the (checked) string value in `range`, quotes included, holds a backslash.
    func hasEscape(_ range: Range<Int>) -> Bool {
        var k = range.lowerBound
        while k < range.upperBound {
            if base[k] == 0x5C { return true }
            k &+= 1
        }
        return false
    }

    /// True when the string's content equals `name` (escapes decoded).
    @inline(__always)
    func equals(_ token: StringToken, _ name: StaticString) -> Bool {
        if !token.escaped {
            let n = name.utf8CodeUnitCount
            guard token.end &- token.start == n else { return false }
            for k in 0..<n where base[token.start &+ k] != name.utf8Start[k] { return false }
            return true
        }
        return decoded(token).elementsEqual(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }
}
