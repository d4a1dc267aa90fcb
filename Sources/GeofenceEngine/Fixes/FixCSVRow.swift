/// One data row of a fix CSV, parsed in place (no allocation).
public struct FixCSVRow {
    /// The device id's bytes `[deviceStart, deviceEnd)` in the line buffer; when
    /// `deviceQuoted`, the range holds the text between the quotes with `""` still doubled.
    public var deviceStart = 0
    public var deviceEnd = 0
    public var deviceQuoted = false
    /// Milliseconds since the epoch.
    public var timestamp: Int64 = 0
    public var latitude = 0.0
    public var longitude = 0.0
    /// Metres; NaN when absent.
    public var accuracy = Double.nan
    /// The floor, or `Int.min` when absent.
    public var level = Int.min

    public init() {}

    /// Why a row is unreadable (rejection reason `parse`).
    public enum Failure: Error, Hashable, Sendable {
        case fieldCount(found: Int, expected: Int)
        case unterminatedQuote
        case emptyDeviceID
        case badNumber(column: String)
        case badTimestamp(TimestampParser.Failure)
        case badAccuracy
        case badLevel

        public var reason: String {
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
    public mutating func parse(
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

    /// The usual row in one pass, line break included: the index of the line break that
    /// ends it (or `limit`), or nil to leave the line to ``parse(_:_:_:header:)``.
    ///
    /// Handles unquoted fields with no spaces, epoch-millisecond timestamps and plain decimal
    /// numbers: each number is read straight up to its comma, and the line's end is found on
    /// the way, so a byte is looked at once, where the full parser first finds the line's
    /// end, then the fields, trims them, then reads them. Anything else (quotes, spaces,
    /// ISO-8601 times, a bad field, a wrong field count, a blank line) returns nil and the
    /// full parser decides, with its error messages. When it returns an index the row holds
    /// exactly what ``parse(_:_:_:header:)`` would have set for the line before it (a
    /// carriage return before the break belongs to the break). Bytes up to `limit` may be
    /// read.
    /// - Complexity: O(line length), no allocation.
    @inlinable
    public mutating func parseSimple(_ p: UnsafePointer<UInt8>, _ start: Int, limit: Int, header: FixCSVHeader) -> Int? {
        let comma = UInt8(ascii: ",")
        let fieldCount = header.fieldCount
        var i = start
        var field = 0
        var sawTimestamp = false
        var sawLatitude = false
        var sawLongitude = false
        accuracy = .nan
        level = Int.min
        // Ends a plain field: a comma, a line break or a carriage return (all at or below ',').
        @inline(__always) func isStop(_ b: UInt8) -> Bool { b <= comma && (b == comma || b == 0x0A || b == 0x0D) }
        let lineEnd: Int? = header.roles.withUnsafeBufferPointer { roles in
            while true {
                guard field < fieldCount else { return nil }
                if i < limit && p[i] == UInt8(ascii: "\"") { return nil }
                switch roles[field] {
                case FixCSVHeader.FieldRole.deviceID:
                    let s = i
                    while i < limit && !isStop(p[i]) { i &+= 1 }
                    guard i > s else { return nil }
                    deviceStart = s
                    deviceEnd = i
                    deviceQuoted = false
                case FixCSVHeader.FieldRole.timestamp:
                    var negative = false
                    if i < limit && p[i] == UInt8(ascii: "-") { negative = true; i &+= 1 }
                    let s = i
                    // Eight digits a step (13 for epoch milliseconds): a digit at a time is a
                    // chain of dependent multiply-adds.
                    var value: UInt64 = 0
                    while i &+ 8 <= limit && i &- s <= 16 {
                        let n = DecimalParser.eightDigits(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self), into: &value)
                        i &+= n
                        if n < 8 { break }
                    }
                    while i < limit && i &- s <= 18 {
                        let d = p[i] &- 0x30
                        if d > 9 { break }
                        value = value &* 10 &+ UInt64(d)
                        i &+= 1
                    }
                    guard i > s && i - s <= 18 && (i == limit || p[i] &- 0x30 > 9) else { return nil }
                    timestamp = negative ? -Int64(value) : Int64(value)
                    sawTimestamp = true
                case FixCSVHeader.FieldRole.latitude, FixCSVHeader.FieldRole.longitude:
                    let (v, stop) = DecimalParser.scan(p, i, limit, readable: limit)
                    guard let v else { return nil }
                    i = stop
                    if roles[field] == FixCSVHeader.FieldRole.latitude {
                        latitude = v
                        sawLatitude = true
                    } else {
                        longitude = v
                        sawLongitude = true
                    }
                case FixCSVHeader.FieldRole.accuracy:
                    if i < limit && !isStop(p[i]) {
                        let (v, stop) = DecimalParser.scan(p, i, limit, readable: limit)
                        guard let v, v >= 0 else { return nil }
                        accuracy = v
                        i = stop
                    }
                case FixCSVHeader.FieldRole.level:
                    if i < limit && !isStop(p[i]) {
                        var j = i
                        while j < limit && !isStop(p[j]) { j &+= 1 }
                        guard let l = Self.parseInteger(p, i, j) else { return nil }
                        level = l
                        i = j
                    }
                default:
                    while i < limit && !isStop(p[i]) { i &+= 1 }
                }
                field &+= 1
                if i == limit { return field == fieldCount ? limit : nil }
                let c = p[i]
                if c == comma {
                    i &+= 1
                    continue
                }
                guard field == fieldCount else { return nil }
                if c == 0x0A { return i }
                // A carriage return ends the line only before a line break or at the end.
                if c == 0x0D && (i &+ 1 == limit || p[i &+ 1] == 0x0A) { return i &+ 1 }
                return nil
            }
        }
        guard let lineEnd, sawTimestamp && sawLatitude && sawLongitude else { return nil }
        return lineEnd
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
    public func deviceID(in p: UnsafePointer<UInt8>) -> String {
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
