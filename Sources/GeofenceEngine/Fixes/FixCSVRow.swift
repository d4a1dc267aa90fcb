/// One data row of a fix CSV, parsed in place (no allocation).
package struct FixCSVRow {
    /// The device id's bytes `[deviceStart, deviceEnd)` in the line buffer; when
    /// `deviceQuoted`, the range holds the text between the quotes with `""` still doubled.
    package var deviceStart = 0
    package var deviceEnd = 0
    package var deviceQuoted = false
    /// Milliseconds since the epoch.
    package var timestamp: Int64 = 0
    package var latitude = 0.0
    package var longitude = 0.0
    /// Metres; NaN when absent.
    package var accuracy = Double.nan
    /// The floor, or `Int.min` when absent.
    package var level = Int.min

    package init() {}

    /// Why a row is unreadable (rejection reason `parse`).
    package enum Failure: Error, Hashable, Sendable {
        case fieldCount(found: Int, expected: Int)
        case unterminatedQuote
        case emptyDeviceID
        case badNumber(column: String)
        case badTimestamp(TimestampParser.Failure)
        case badAccuracy
        case badLevel

        package var reason: String {
            switch self {
            case .fieldCount(let found, let expected): "row has \(found) field(s), the header has \(expected)"
            case .unterminatedQuote: "unterminated quoted field"
            case .emptyDeviceID: "empty device_id"
            case .badNumber(let column): "\(column) is not a decimal number"
            case .badTimestamp(let failure): failure.reason
            case .badAccuracy: "accuracy is not a number of metres >= 0"
            case .badLevel: "level is not an integer"
            }
        }
    }

    /// Parses the line `[start, end)` of `p` (no line break; a trailing CR is ignored).
    ///
    /// Fields are separated by commas; a field may be quoted (`"a,b"`, `"say ""hi"""`) but
    /// may not span lines. Spaces around numbers are ignored.
    /// - Complexity: O(line length), no allocation.
    @inlinable
    package mutating func parse(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, header: FixCSVHeader
    ) -> Failure? {
        var end = end
        if end > start && p[end - 1] == 0x0D { end -= 1 }
        // No device id until its field is read (a row that fails before it has none).
        deviceStart = start
        deviceEnd = start
        deviceQuoted = false
        // Field bounds of the columns we need, found in one pass.
        var field = 0
        var i = start
        var accuracyField: (Int, Int)? = nil
        var levelField: (Int, Int)? = nil
        var timestampField = (0, 0), latitudeField = (0, 0), longitudeField = (0, 0)
        while true {
            var fieldStart = i, fieldEnd: Int
            var quoted = false
            if i < end && p[i] == UInt8(ascii: "\"") {
                quoted = true
                i += 1
                fieldStart = i
                while true {
                    guard i < end else { return .unterminatedQuote }
                    if p[i] == UInt8(ascii: "\"") {
                        if i + 1 < end && p[i + 1] == UInt8(ascii: "\"") { i += 2; continue }
                        break
                    }
                    i += 1
                }
                fieldEnd = i
                i += 1  // closing quote
                while i < end && p[i] != UInt8(ascii: ",") { i += 1 }  // tolerate spaces after the quote
            } else {
                while i < end && p[i] != UInt8(ascii: ",") { i += 1 }
                fieldEnd = i
            }
            let role = field < header.fieldCount ? header.roles.withUnsafeBufferPointer { $0[field] } : FixCSVHeader.FieldRole.ignored
            switch role {
            case FixCSVHeader.FieldRole.deviceID:
                deviceStart = fieldStart
                deviceEnd = fieldEnd
                deviceQuoted = quoted
            case FixCSVHeader.FieldRole.timestamp: timestampField = (fieldStart, fieldEnd)
            case FixCSVHeader.FieldRole.latitude: latitudeField = (fieldStart, fieldEnd)
            case FixCSVHeader.FieldRole.longitude: longitudeField = (fieldStart, fieldEnd)
            case FixCSVHeader.FieldRole.accuracy: accuracyField = (fieldStart, fieldEnd)
            case FixCSVHeader.FieldRole.level: levelField = (fieldStart, fieldEnd)
            default: break
            }
            field += 1
            if i >= end { break }
            i += 1  // comma
        }
        if field != header.fieldCount { return .fieldCount(found: field, expected: header.fieldCount) }
        if deviceStart == deviceEnd { return .emptyDeviceID }
        var (a, b) = Self.trim(p, timestampField)
        switch TimestampParser.parse(p, a, b) {
        case .success(let t): timestamp = t
        case .failure(let f): return .badTimestamp(f)
        }
        (a, b) = Self.trim(p, latitudeField)
        guard let lat = DecimalParser.parse(p, a, b) else { return .badNumber(column: "lat") }
        latitude = lat
        (a, b) = Self.trim(p, longitudeField)
        guard let lon = DecimalParser.parse(p, a, b) else { return .badNumber(column: "lon") }
        longitude = lon
        accuracy = .nan
        if let f = accuracyField {
            (a, b) = Self.trim(p, f)
            if a < b {
                guard let acc = DecimalParser.parse(p, a, b), acc >= 0 else { return .badAccuracy }
                accuracy = acc
            }
        }
        level = Int.min
        if let f = levelField {
            (a, b) = Self.trim(p, f)
            if a < b {
                guard let l = Self.parseInteger(p, a, b) else { return .badLevel }
                level = l
            }
        }
        return nil
    }

    @inlinable
    static func trim(_ p: UnsafePointer<UInt8>, _ f: (Int, Int)) -> (Int, Int) {
        var (a, b) = f
        while a < b && (p[a] == 0x20 || p[a] == 0x09) { a += 1 }
        while b > a && (p[b - 1] == 0x20 || p[b - 1] == 0x09) { b -= 1 }
        return (a, b)
    }

    @inlinable
    static func parseInteger(_ p: UnsafePointer<UInt8>, _ a: Int, _ b: Int) -> Int? {
        var i = a
        var negative = false
        if i < b && (p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+")) { negative = p[i] == UInt8(ascii: "-"); i += 1 }
        guard i < b, b - i <= 9 else { return nil }
        var v = 0
        while i < b {
            let d = p[i] &- 0x30
            if d > 9 { return nil }
            v = v * 10 + Int(d)
            i += 1
        }
        return negative ? -v : v
    }

    /// The device id as a string (quotes undone).
    package func deviceID(in p: UnsafePointer<UInt8>) -> String {
        let raw = UnsafeBufferPointer(start: p + deviceStart, count: deviceEnd - deviceStart)
        if !deviceQuoted { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        var k = 0
        while k < raw.count {
            out.append(raw[k])
            k += raw[k] == UInt8(ascii: "\"") ? 2 : 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
