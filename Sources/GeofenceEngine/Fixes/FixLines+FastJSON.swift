/// The NDJSON reader's fast path: the usual fix line read in one pass over its bytes, with
/// the generic parse of `FixLines.Reader.jsonLine` as its twin.
///
/// The generic path builds a `JSONValue` for the line (a `String` a member name, a
/// `String` a number, an array of members) and then looks the members up by name; for a
/// body of 1,000 lines that was about a seventh of the server's time. Here the members are
/// recognised by their bytes and only the device id becomes a `String`.
extension FixLines {
    /// The members a fix line names, as bits: a second member of the same name is told by
    /// its bit, and the line is complete when the four required bits are set.
    private enum Member {
        static let deviceID: UInt8 = 1
        static let timestamp: UInt8 = 2
        static let latitude: UInt8 = 4
        static let longitude: UInt8 = 8
        static let accuracy: UInt8 = 16
        static let level: UInt8 = 32
        static let required: UInt8 = 15

        /// The bit of the member name `p[start ..< end]`, 0 for a name the reader ignores.
        ///
        /// Comparing bytes is comparing names as `JSONObject`'s subscript does (`String`
        /// equality, canonical equivalence): no other text is canonically equivalent to
        /// these ASCII names, since the only characters that decompose to ASCII alone are
        /// the Kelvin sign (K), U+037E (;) and U+1FEF (`), none of which they hold.
        @inline(__always)
        static func named(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> UInt8 {
            @inline(__always) func equals(_ name: StaticString) -> Bool {
                end - start == name.utf8CodeUnitCount && Platform.bytesEqual(p + start, name.utf8Start, count: end - start)
            }
            switch end - start {
            case 3: return equals("lat") ? latitude : equals("lng") ? longitude : 0
            case 5: return equals("level") ? level : 0
            case 8: return equals("deviceId") ? deviceID : equals("accuracy") ? accuracy : 0
            case 9: return equals("timestamp") ? timestamp : 0
            default: return 0
            }
        }
    }

    /// The device id and fix of a usual NDJSON line, or nil to leave the line to the
    /// generic parser.
    ///
    /// Takes one flat object whose names and strings have no escapes and whose values are
    /// strings, numbers, `true`, `false` or `null`, with any JSON whitespace and members in
    /// any order, unknown ones skipped. Anything else returns nil: an escape, a nested value,
    /// a byte order mark, a second member of a name it reads, a member missing or of the
    /// wrong type, a value the generic path refuses (a bad number or time, an empty id, a
    /// negative accuracy, a level that is not an integer), text after the object. So every
    /// refusal, and its message, stays the generic path's; what this returns is what
    /// `FixLines.Reader.fix(_:)` makes of the same line, because it uses the same
    /// conversions on the same bytes: `TimestampParser` for the time (the bytes behind the
    /// generic path's `String`), `JSONNumber.parse` of the raw bytes for the
    /// numbers, `JSONNumber.exactInt` for the level.
    ///
    /// `p[start ..< end]` must be valid UTF-8 (`FixLines.Reader.jsonLine`
    /// checks first), so a string's bytes are its text as they are.
    /// - Complexity: O(end - start); at most one allocation, the device id's `String` (none
    ///   for an id of up to 15 bytes, which the `String` holds inline).
    package static func fastJSONFix(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (deviceID: String, fix: Fix)? {
        var i = start
        @inline(__always) func skipSpace() {
            while i < end, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0D || p[i] == 0x0A { i &+= 1 }
        }
        @inline(__always) func number(_ from: Int, _ to: Int) -> Double? {
            JSONNumber.parse(UnsafeRawBufferPointer(start: p + from, count: to - from))
        }
        skipSpace()
        guard i < end, p[i] == UInt8(ascii: "{") else { return nil }
        i &+= 1
        var seen: UInt8 = 0
        var deviceStart = 0, deviceEnd = 0
        var milliseconds: Int64 = 0, latitude = 0.0, longitude = 0.0
        var accuracy: Double? = nil, level: Int? = nil
        while true {
            // `{}` and a trailing comma land here without a quote: the generic path's errors.
            skipSpace()
            guard i < end, p[i] == UInt8(ascii: "\""), let nameEnd = stringEnd(p, i &+ 1, end) else { return nil }
            let member = Member.named(p, i &+ 1, nameEnd)
            // JSONObject keeps the last of two members of one name; simpler to leave them.
            if seen & member != 0 { return nil }
            seen |= member
            i = nameEnd &+ 1
            skipSpace()
            guard i < end, p[i] == UInt8(ascii: ":") else { return nil }
            i &+= 1
            skipSpace()
            guard i < end else { return nil }
            let valueStart = i
            switch p[i] {
            case UInt8(ascii: "\""):
                guard let close = stringEnd(p, i &+ 1, end) else { return nil }
                i = close &+ 1
                switch member {
                case 0: break
                case Member.deviceID:
                    guard close > valueStart &+ 1 else { return nil }
                    (deviceStart, deviceEnd) = (valueStart &+ 1, close)
                case Member.timestamp:
                    guard case .success(let t) = TimestampParser.parse(p, valueStart &+ 1, close) else { return nil }
                    milliseconds = t
                default: return nil  // a number as a string: "lat is not a number" and the like
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let stop = numberEnd(p, i, end) else { return nil }
                i = stop
                switch member {
                case 0: break
                case Member.timestamp:
                    // The generic path hands a number's literal text to the same parser.
                    guard case .success(let t) = TimestampParser.parse(p, valueStart, stop) else { return nil }
                    milliseconds = t
                case Member.latitude:
                    guard let v = number(valueStart, stop) else { return nil }
                    latitude = v
                case Member.longitude:
                    guard let v = number(valueStart, stop) else { return nil }
                    longitude = v
                case Member.accuracy:
                    guard let v = number(valueStart, stop), v >= 0 else { return nil }
                    accuracy = v
                case Member.level:
                    guard let v = number(valueStart, stop), let floor = JSONNumber.exactInt(v) else { return nil }
                    level = floor
                default: return nil  // deviceId
                }
            case UInt8(ascii: "n"):
                // null leaves an optional member unset, as the generic path does.
                guard member == 0 || member == Member.accuracy || member == Member.level, word("null", p, i, end) else { return nil }
                i &+= 4
            case UInt8(ascii: "t"):
                guard member == 0, word("true", p, i, end) else { return nil }
                i &+= 4
            case UInt8(ascii: "f"):
                guard member == 0, word("false", p, i, end) else { return nil }
                i &+= 5
            default:
                return nil  // an object or an array, or not a value
            }
            skipSpace()
            guard i < end else { return nil }
            if p[i] == UInt8(ascii: ",") {
                i &+= 1
                continue
            }
            guard p[i] == UInt8(ascii: "}") else { return nil }
            i &+= 1
            break
        }
        skipSpace()
        guard i == end, seen & Member.required == Member.required else { return nil }
        let device = String(decoding: UnsafeBufferPointer(start: p + deviceStart, count: deviceEnd - deviceStart), as: UTF8.self)
        let fix = Fix(timestamp: Timestamp(milliseconds: milliseconds), latitude: latitude, longitude: longitude, accuracy: accuracy, level: level)
        return (device, fix)
    }

    /// ``fastJSONFix(_:_:_:)`` of a whole line (for the tests): nil also when it is not UTF-8.
    package static func fastJSONFix(_ line: [UInt8]) -> (deviceID: String, fix: Fix)? {
        line.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, UTF8Validation.isValid(base, 0, buffer.count) else { return nil }
            return fastJSONFix(base, 0, buffer.count)
        }
    }

    /// The index of the quote that closes a string whose text starts at `from`, or nil when
    /// it holds an escape (decoded only by the generic path) or a control character (an
    /// error there), or is not closed.
    /// - Complexity: O(length of the string).
    @inline(__always)
    private static func stringEnd(_ p: UnsafePointer<UInt8>, _ from: Int, _ end: Int) -> Int? {
        var i = from
        while i < end {
            let b = p[i]
            if b == UInt8(ascii: "\"") { return i }
            if b == UInt8(ascii: "\\") || b < 0x20 { return nil }
            i &+= 1
        }
        return nil
    }

    /// The end of the number starting at `from` by the generic parser's grammar (RFC 8259:
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), or nil where it would throw
    /// "invalid number". A digit right after a leading 0 ends the number here, as there,
    /// and is then refused by the caller as text after a value.
    /// - Complexity: O(length of the number).
    @inline(__always)
    private static func numberEnd(_ p: UnsafePointer<UInt8>, _ from: Int, _ end: Int) -> Int? {
        @inline(__always) func isDigit(_ i: Int) -> Bool { i < end && p[i] &- 0x30 < 10 }
        var i = from
        if p[i] == UInt8(ascii: "-") { i &+= 1 }
        guard isDigit(i) else { return nil }
        if p[i] == UInt8(ascii: "0") {
            i &+= 1
        } else {
            while isDigit(i) { i &+= 1 }
        }
        if i < end, p[i] == UInt8(ascii: ".") {
            i &+= 1
            guard isDigit(i) else { return nil }
            while isDigit(i) { i &+= 1 }
        }
        if i < end, p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
            i &+= 1
            if i < end, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { i &+= 1 }
            guard isDigit(i) else { return nil }
            while isDigit(i) { i &+= 1 }
        }
        return i
    }

    /// True when `p[at...]` spells `word` (`true`, `false`, `null`) in full.
    @inline(__always)
    private static func word(_ word: StaticString, _ p: UnsafePointer<UInt8>, _ at: Int, _ end: Int) -> Bool {
        end - at >= word.utf8CodeUnitCount && Platform.bytesEqual(p + at, word.utf8Start, count: word.utf8CodeUnitCount)
    }
}
