import GeofenceGeometry

/// The checks of one read feature, in the tree decoder's order, and the record it becomes.
extension GeoJSONFeatureReader {
    /// The value of a captured member (checked when read, so it parses).
    private func value(_ s: GeoJSONScanner, _ range: Range<Int>?) -> JSONValue? {
        guard let range else { return nil }
        return try? JSONParser.parse(UnsafeRawBufferPointer(start: s.base + range.lowerBound, count: range.count))
    }

    /// The feature's checks (semantics §1); a fence is committed to `records`.
    mutating func decide(_ s: GeoJSONScanner, _ c: Captures, index: Int, depth: Int) -> Outcome {
        var id: String? = nil
        func fail(_ reason: String) -> Outcome { .problem(id: id, reason: reason) }
        if let range = c.properties, s.base[range.lowerBound] != UInt8(ascii: "{"), s.base[range.lowerBound] != UInt8(ascii: "n") {
            return fail("\"properties\" must be an object, found \(Self.typeName(s.base[range.lowerBound]))")
        }
        switch idText(s, c.propertiesID) ?? idText(s, c.id) {
        case .success(let text)?: id = text
        case .failure(let reason)?: return fail(reason.text)
        case nil: return fail("missing id (expected properties.id or the Feature's id)")
        }
        guard let typeRange = c.type, Self.isString(s, typeRange, "Feature") else {
            let type = value(s, c.type)
            return fail("expected \"type\": \"Feature\", found \(type.map { JSONWriter.string($0) } ?? "no type")")
        }
        var level: Int? = nil
        switch value(s, c.level) {
        case nil, .null?: break
        case let v?:
            guard let l = Self.integer(v) else { return fail("level must be an integer, found \(JSONWriter.string(v))") }
            level = l
        }
        var library: String? = nil
        switch value(s, c.library) {
        case nil, .null?: break
        case .string(let text)?: library = text
        case let v?: return fail("library must be a string, found \(v.typeName)")
        }
        var rank = 0
        switch value(s, c.rank) {
        case nil, .null?: break
        case let v?:
            guard let r = Self.integer(v) else { return fail("rank must be an integer, found \(JSONWriter.string(v))") }
            rank = r
        }
        var dwell: Double? = nil
        switch value(s, c.dwell) {
        case nil, .null?: break
        case let v?:
            guard let d = v.doubleValue, d.isFinite, d >= 0 else {
                return fail("dwellSeconds must be a number of seconds >= 0, found \(JSONWriter.string(v))")
            }
            dwell = d
        }
        guard let geometry = c.geometry, s.base[geometry.lowerBound] != UInt8(ascii: "n") else { return fail("missing geometry") }
        guard s.base[geometry.lowerBound] == UInt8(ascii: "{") else { return fail("geometry must be an object") }
        var circle = SIMD4<Double>(0, 0, 0, 0)
        // The shape was read as the type the last `type` member names (when it is one of the three).
        switch c.shape?.type {
        case .point?:
            if let problem = c.shape?.reader.problem { return fail(problem) }
            guard let center = c.shape?.reader.point else { return fail("Point coordinates must be a position [longitude, latitude]") }
            guard let range = c.radius, s.base[range.lowerBound] != UInt8(ascii: "n") else {
                return fail("a Point fence needs properties.radius (metres)")
            }
            let text = { s.compactText(range, depth: depth) }
            guard s.base[range.lowerBound] == UInt8(ascii: "-") || s.base[range.lowerBound] &- 0x30 <= 9, let radius = s.numberValue(range) else {
                return fail("radius must be a number of metres, found \(text())")
            }
            guard radius.isFinite, radius > 0 else { return fail("radius must be > 0 metres, found \(text())") }
            guard radius <= GeoJSONFenceReader.maximumRadius else {
                return fail("radius \(text()) m exceeds the maximum of 1000000 m")
            }
            circle = SIMD4(center.latitude, center.longitude, radius, 0)
        case .polygon?, .multiPolygon?:
            if let problem = c.shape?.reader.problem { return fail(problem) }
        case nil:
            let geometryType = value(s, c.geometryType)?.stringValue ?? "(none)"
            return fail("unknown geometry type \(JSONWriter.quoted(geometryType)) (expected Point with properties.radius, Polygon or MultiPolygon)")
        }
        commit(id: id!, index: index, level: level, library: library, rank: rank, dwell: dwell, circle: circle, isPoint: c.shape?.type == .point)
        return .fence
    }

    /// Appends the decided fence to the records (its shape is already there).
    private mutating func commit(
        id: String, index: Int, level: Int?, library: String?, rank: Int, dwell: Double?, circle: SIMD4<Double>, isPoint: Bool
    ) {
        records.beginFence(id: id, featureIndex: index)
        var attributes: FenceAttributes = isPoint ? [] : .polygon
        if library != nil { attributes.insert(.library) }
        records.libraries.append(library ?? "")
        if dwell != nil { attributes.insert(.dwell) }
        records.dwellSeconds.append(dwell ?? 0)
        records.levels.append(level ?? FenceSet.noLevel)
        records.ranks.append(rank)
        records.attributes.append(attributes)
        records.circles.append(circle)
        let (members, ends) = (self.members, self.memberEnds)
        records.properties.appendWriting { out in
            out.append(UInt8(ascii: "{"))
            var start = 0, first = true
            for (end, isRadius) in ends {
                if !(isPoint && isRadius) {
                    if !first { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: members[start..<end])
                    first = false
                }
                start = end
            }
            out.append(UInt8(ascii: "}"))
        }
        records.partStarts.append(UInt32(records.ringStarts.count - 1))
    }

    /// A failure's reason, as an `Error` for `Result`.
    struct Reason: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// True when the value in `range` is the string `text`.
    static func isString(_ s: GeoJSONScanner, _ range: Range<Int>, _ text: StaticString) -> Bool {
        guard s.base[range.lowerBound] == UInt8(ascii: "\"") else { return false }
        let token = GeoJSONScanner.StringToken(start: range.lowerBound + 1, end: range.upperBound - 1, escaped: s.hasEscape(range))
        return s.equals(token, text)
    }

    /// ``idText(_:)`` of a captured value, without building a ``JSONValue`` for the usual
    /// ones (a string, a number).
    private func idText(_ s: GeoJSONScanner, _ range: Range<Int>?) -> Result<String, Reason>? {
        guard let range else { return nil }
        switch s.base[range.lowerBound] {
        case UInt8(ascii: "\""):
            let token = GeoJSONScanner.StringToken(start: range.lowerBound + 1, end: range.upperBound - 1, escaped: s.hasEscape(range))
            let text = s.text(token)
            return text.isEmpty ? .failure(Reason("id is an empty string")) : .success(text)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .success(String(decoding: UnsafeBufferPointer(start: s.base + range.lowerBound, count: range.count), as: UTF8.self))
        default:
            return Self.idText(value(s, range))
        }
    }

    /// An id: a non-empty string, or a number's literal text; nil when absent or null.
    static func idText(_ value: JSONValue?) -> Result<String, Reason>? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return s.isEmpty ? .failure(Reason("id is an empty string")) : .success(s)
        case .number(let literal)?: return .success(literal)
        case let v?: return .failure(Reason("id must be a string or a number, found \(v.typeName)"))
        }
    }

    /// An integer: a number with an exact integer value, or a string of one.
    static func integer(_ value: JSONValue) -> Int? {
        if let i = value.intValue { return i }
        if let s = value.stringValue { return Int(s) }
        return nil
    }
}
