/// Where and why a text is not JSON.
package struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line and column (in bytes) of the offending character.
    package var line: Int
    package var column: Int
    package var reason: String

    package var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 JSON reader over UTF-8 bytes.
///
/// It keeps number literals and member order (see ``JSONValue``), rejects trailing commas,
/// comments, NaN and invalid UTF-8, and limits nesting depth so hostile input cannot
/// exhaust the stack.
package struct JSONParser {
    /// Deepest nesting of arrays and objects accepted.
    package static let maximumDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0
    /// False to check the text without keeping what it holds (arrays and objects read as null).
    private var building = true

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Parses one JSON text (a value surrounded by optional whitespace).
    ///
    /// - Complexity: O(n) in the number of bytes.
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is tolerated at the start.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// Checks one JSON text without building its value: the same errors as ``parse(_:)``
    /// (the first one in the text), in memory proportional to the nesting depth.
    package static func validate(_ bytes: UnsafeRawBufferPointer) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes)
        parser.building = false
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { parser.index = 3 }
        parser.skipWhitespace()
        _ = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.error("unexpected text after the JSON value") }
    }

    /// Parses one JSON text from a byte array.
    package static func parse(_ data: [UInt8]) throws(JSONParseError) -> JSONValue {
        var result: Result<JSONValue, JSONParseError> = .failure(JSONParseError(line: 1, column: 1, reason: "empty"))
        data.withUnsafeBytes { raw in
            do throws(JSONParseError) { result = .success(try parse(raw)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    /// Parses one JSON text from a string.
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ reason: String, at position: Int? = nil) -> JSONParseError {
        let end = Swift.min(position ?? index, bytes.count)
        var line = 1, lineStart = 0
        for i in 0..<end where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return JSONParseError(line: line, column: end - lineStart + 1, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let b = bytes[index]
        return b >= 0x20 && b < 0x7F ? "'\(Character(UnicodeScalar(b)))'" : "byte 0x\(String(b, radix: 16))"
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("expected a value, found end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let start = index
        let n = word.utf8CodeUnitCount
        guard index + n <= bytes.count else { throw error("invalid literal", at: start) }
        for i in 0..<n where bytes[index + i] != word.utf8Start[i] {
            throw error("invalid literal (expected \(word))", at: start)
        }
        index += n
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [JSONObject.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject(members: members))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in quotes, found \(describeCurrent())")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name, found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if building { members.append(JSONObject.Member(key: key, value: value)) }
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw error("expected ',' or '}' in object, found \(describeCurrent())")
        }
        depth -= 1
        return .object(JSONObject(members: members))
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            let element = try parseValue()
            if building { elements.append(element) }
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw error("expected ',' or ']' in array, found \(describeCurrent())")
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number", at: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        let start = index
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        let runStart = index
        var plainRun = true  // no escapes so far: decode the run in one step
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                if plainRun { return try decodeUTF8(runStart, index, startOfString: start, closing: true) }
                break
            }
            if b < 0x20 { throw error("control character in string (escape it)") }
            if b == UInt8(ascii: "\\") {
                if plainRun {
                    scalars.append(contentsOf: try decodeUTF8(runStart, index, startOfString: start, closing: false).unicodeScalars)
                    plainRun = false
                }
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"): scalars.append(try parseUnicodeEscape())
                default: throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'", at: index - 2)
                }
                continue
            }
            if plainRun { index += 1; continue }
            // After an escape, copy one UTF-8 sequence at a time.
            let seqStart = index
            index += 1
            while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
            scalars.append(contentsOf: try decodeUTF8(seqStart, index, startOfString: start, closing: false).unicodeScalars)
        }
        index += 1
        return String(scalars)
    }

    private mutating func decodeUTF8(_ from: Int, _ to: Int, startOfString: Int, closing: Bool) throws(JSONParseError) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[from..<to])
        guard let s = String(validating: slice, as: UTF8.self) else {
            throw error("invalid UTF-8 in string", at: from)
        }
        if closing { index = to + 1 }
        return s
    }

    private mutating func readHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let high = try readHex4()
        if (0xD800...0xDBFF).contains(high) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("unpaired surrogate in \\u escape")
            }
            index += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate in \\u escape") }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(high) else { throw error("unpaired surrogate in \\u escape") }
        return scalar
    }
}
