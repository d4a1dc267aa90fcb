/// A JSON value that keeps what it read: numbers as their literal text and object members
/// in file order, so fence properties pass through to events untouched.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// The number's literal text as written (e.g. `"1.50"`, `"-3e2"`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A number from a Swift integer.
    public static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// A number from a Swift double (shortest text that reads back the same); nil when the
    /// value is not finite, since JSON has no NaN or infinity.
    public static func double(_ value: Double) -> JSONValue? {
        value.isFinite ? .number(JSONNumber.text(value)) : nil
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number as a Double (correctly rounded), when this is a number.
    public var doubleValue: Double? {
        guard case .number(let text) = self else { return nil }
        return JSONNumber.parse(text)
    }

    /// The number as an Int, when this is a number with an exact integer value in range.
    public var intValue: Int? {
        doubleValue.flatMap(JSONNumber.exactInt)
    }

    /// The object, when this is one.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array, when this is one.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A short name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object's members in the order they were read.
public struct JSONObject: Hashable, Sendable {
    /// One key and its value, in file order.
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var members: [Member]

    public init(members: [Member] = []) { self.members = members }

    /// The value of the last member named `key` (as JavaScript reads duplicates), or nil.
    ///
    /// - Complexity: O(n) in the number of members.
    public subscript(key: String) -> JSONValue? {
        members.last(where: { $0.key == key })?.value
    }

    /// The object without the members named in `keys`, order kept.
    public func removing(_ keys: Set<String>) -> JSONObject {
        JSONObject(members: members.filter { !keys.contains($0.key) })
    }
}

/// Number text conversions shared by the JSON and CSV readers.
package enum JSONNumber {
    /// Correctly rounded value of a decimal literal (via the C library), or nil when the text
    /// is not entirely a number.
    package static func parse(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { bytes -> Double? in
            parse(UnsafeRawBufferPointer(bytes))
        }
    }

    /// Correctly rounded value of the bytes, or nil unless they are entirely a finite or
    /// infinite decimal number (no hex, no `nan`, no spaces).
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count < 400 else { return nil }
        // The CSV reader's parser: the same decimal grammar as strtod, correctly rounded, with
        // Clinger's fast path for the usual coordinate or time (strtod alone and its helpers
        // were about 3.5 % of a server's batched NDJSON). Tested against parseWithCLibrary.
        return DecimalParser.parse(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), 0, bytes.count)
    }

    /// ``parse(_:)`` through the C library's `strtod` alone: every decimal form, correctly
    /// rounded (the obvious twin ``parse(_:)`` is tested against).
    package static func parseWithCLibrary(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count < 400 else { return nil }
        // Only decimal syntax: digits, sign, dot, exponent.
        for b in bytes {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                continue
            default:
                return nil
            }
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer -> Double? in
            for (i, b) in bytes.enumerated() { buffer[i] = CChar(bitPattern: b) }
            buffer[bytes.count] = 0
            let parsed = Platform.parseDouble(buffer.baseAddress!)
            return parsed.consumed == bytes.count ? parsed.value : nil
        }
    }

    /// `value` as an Int when it is a whole number below 9×10¹⁵ in magnitude (so exact), or
    /// nil: the rule of ``JSONValue/intValue``, shared with the NDJSON fix reader's fast path.
    package static func exactInt(_ value: Double) -> Int? {
        guard value.rounded() == value, abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }

    /// Shortest text that reads back as the same double; integers without a fraction. (A NaN,
    /// which JSON cannot hold, is "nan" whatever its payload.)
    package static func text(_ value: Double) -> String {
        var out: [UInt8] = []
        write(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``text(_:)`` of `value` to `out`, without building a `String` for an integer
    /// (and through `description`, not string interpolation, for the rest: measured 44 against
    /// 74 ns a number).
    package static func write(_ value: Double, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumDoubleBytes) { buffer in
            let p = buffer.baseAddress!
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: put(value, at: p) - p))
        }
    }

    /// Room for the longest ``text(_:)`` of a double: a sign, 17 digits, a point and an
    /// exponent take 24 bytes.
    package static let maximumDoubleBytes = 32

    /// Writes ``text(_:)`` of `value` at `p`, which has room for ``maximumDoubleBytes``;
    /// returns the position after it. The one implementation behind ``write(_:to:)`` and the
    /// batch's pointer writer.
    package static func put(_ value: Double, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        // A whole number below 10^15 in magnitude is written as an integer.
        if value == value.rounded() && abs(value) < 1e15 { return DecimalText.put(Int64(value), at: p) }
        var text = value.description
        return text.withUTF8 { utf8 in
            precondition(utf8.count <= maximumDoubleBytes, "a double's text of \(utf8.count) bytes")
            p.update(from: utf8.baseAddress!, count: utf8.count)
            return p + utf8.count
        }
    }

    /// Appends `value` in decimal, as `String(value)` writes it (``DecimalText``).
    package static func write(_ value: Int64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalText.maximumBytes) { buffer in
            let p = buffer.baseAddress!
            out.append(contentsOf: UnsafeBufferPointer(start: p, count: DecimalText.put(value, at: p) - p))
        }
    }
}
