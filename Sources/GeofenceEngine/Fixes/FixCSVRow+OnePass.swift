/// The batch reader's fast path: the usual row read in one pass.
extension FixCSVRow {
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
    package mutating func parseSimple(_ p: UnsafePointer<UInt8>, _ start: Int, limit: Int, header: FixCSVHeader) -> Int? {
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
                    i = Self.plainFieldEnd(p, i, limit: limit)
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
                    i = Self.plainFieldEnd(p, i, limit: limit)
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

    /// The index of the first comma, line break or carriage return in `p[start ..< limit]`,
    /// or `limit`: where a plain field ends.
    ///
    /// Eight bytes a step while a whole word can be read: each of the three bytes is found
    /// by the zero-byte test on the word XOR its pattern, whose lowest flagged byte is exact
    /// (a borrow can flag only bytes above a true match), so the lowest flag of the three
    /// is the first stop. A byte loop took a tenth of the row parser on 7-byte ids.
    /// - Complexity: O(field length), no allocation.
    @inlinable @inline(__always)
    static func plainFieldEnd(_ p: UnsafePointer<UInt8>, _ start: Int, limit: Int) -> Int {
        var i = start
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while i &+ 8 <= limit {
            let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            let c = word ^ (ones &* 0x2C), n = word ^ (ones &* 0x0A), r = word ^ (ones &* 0x0D)
            let flags = (((c &- ones) & ~c) | ((n &- ones) & ~n) | ((r &- ones) & ~r)) & highs
            if flags != 0 { return i &+ flags.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < limit {
            let b = p[i]
            if b == 0x2C || b == 0x0A || b == 0x0D { return i }
            i &+= 1
        }
        return limit
    }
}
