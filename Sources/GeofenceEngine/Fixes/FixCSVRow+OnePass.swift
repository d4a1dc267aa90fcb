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
    ///
    /// Rows of the usual layout (``FixCSVHeader/isUsualLayout``) take a straight path with
    /// the same rules and results (``parseUsual(_:_:limit:)``).
    /// - Complexity: O(line length), no allocation.
    @inlinable
    package mutating func parseSimple(_ p: UnsafePointer<UInt8>, _ start: Int, limit: Int, header: FixCSVHeader) -> Int? {
        header.isUsualLayout ? parseUsual(p, start, limit: limit) : parseByRoles(p, start, limit: limit, header: header)
    }

    /// ``parseSimple(_:_:limit:header:)`` for any layout: field by field, each read as its
    /// role in the header says (the slow twin of ``parseUsual(_:_:limit:)`` in the tests).
    /// - Complexity: O(line length), no allocation.
    @inlinable
    package mutating func parseByRoles(_ p: UnsafePointer<UInt8>, _ start: Int, limit: Int, header: FixCSVHeader) -> Int? {
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
                    guard let (value, stop) = Self.epochMilliseconds(p, i, limit: limit) else { return nil }
                    timestamp = value
                    i = stop
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

    /// ``parseSimple(_:_:limit:header:)`` for the usual layout, `device_id,timestamp,lat,lon`:
    /// the four fields read in order, with no field's role looked up and no loop over the
    /// fields (the role switch is an indirect branch a field: `geofence-bench csv` 36.0 → 31.8
    /// ns a row). Same rules, same results, nil in the same cases.
    /// - Complexity: O(line length), no allocation.
    @inlinable
    package mutating func parseUsual(_ p: UnsafePointer<UInt8>, _ start: Int, limit: Int) -> Int? {
        let comma = UInt8(ascii: ",")
        accuracy = .nan
        level = Int.min
        // The device id: plain (a quote goes to the full parser) and not empty.
        var i = start
        guard i < limit && p[i] != UInt8(ascii: "\"") else { return nil }
        i = Self.plainFieldEnd(p, start, limit: limit)
        guard i > start && i < limit && p[i] == comma else { return nil }
        deviceStart = start
        deviceEnd = i
        deviceQuoted = false
        // The timestamp, then the coordinates (a quote or anything else not a number: nil).
        guard let (time, afterTime) = Self.epochMilliseconds(p, i &+ 1, limit: limit), afterTime < limit, p[afterTime] == comma
        else { return nil }
        timestamp = time
        let (lat, afterLatitude) = DecimalParser.scan(p, afterTime &+ 1, limit, readable: limit)
        guard let lat, afterLatitude < limit, p[afterLatitude] == comma else { return nil }
        latitude = lat
        let (lon, afterLongitude) = DecimalParser.scan(p, afterLatitude &+ 1, limit, readable: limit)
        guard let lon else { return nil }
        longitude = lon
        // The line's end: the file's end, a line break, or a carriage return before either.
        i = afterLongitude
        if i == limit { return limit }
        if p[i] == 0x0A { return i }
        if p[i] == 0x0D && (i &+ 1 == limit || p[i &+ 1] == 0x0A) { return i &+ 1 }
        return nil
    }

    /// The integer timestamp field at `start` (an optional minus and 1 to 18 digits, followed
    /// by the limit or a byte that is not a digit) and the index after it, or nil.
    ///
    /// Eight digits a step (13 for epoch milliseconds): a digit at a time is a chain of
    /// dependent multiply-adds.
    /// - Complexity: O(field length), no allocation.
    @inlinable @inline(__always)
    static func epochMilliseconds(_ p: UnsafePointer<UInt8>, _ start: Int, limit: Int) -> (Int64, Int)? {
        var i = start
        var negative = false
        if i < limit && p[i] == UInt8(ascii: "-") { negative = true; i &+= 1 }
        let s = i
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
        return (negative ? -Int64(value) : Int64(value), i)
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
