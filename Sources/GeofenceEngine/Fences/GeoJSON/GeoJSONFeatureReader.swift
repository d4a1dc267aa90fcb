import GeofenceGeometry

/// Reads GeoJSON features into fence records, one at a time, on one thread.
///
/// A feature's members may come in any order and repeat (the last one counts, as in a JSON
/// object read whole). Coordinates go straight into `records`; the modelled properties
/// (`id`, `level`, `library`, `rank`, `dwellSeconds`, and `radius` of a Point) are decoded;
/// the others are kept as compact JSON text for events. The checks then run in the order the
/// tree decoder ran them, so a feature with several problems reports the same first one.
struct GeoJSONFeatureReader {
    var records = FenceRecords()
    /// Pass-through members of the current feature, compact (`"name":value`), back to back.
    var members: [UInt8] = []
    /// Where each member ends in `members`, and whether it is a `radius` (dropped for a Point).
    var memberEnds: [(end: Int, isRadius: Bool)] = []

    /// What a feature turned out to be.
    enum Outcome {
        /// A fence, the last record of `records`.
        case fence
        /// Not a fence: the reason, and the id when it was read before the problem.
        case problem(id: String?, reason: String)
    }

    /// The values of one feature's members that count (the last of each name).
    struct Captures {
        var type: Range<Int>? = nil
        var id: Range<Int>? = nil
        /// nil: no `properties` member; else its value's range (an object read member by member).
        var properties: Range<Int>? = nil
        var propertiesID: Range<Int>? = nil
        var level: Range<Int>? = nil
        var library: Range<Int>? = nil
        var rank: Range<Int>? = nil
        var dwell: Range<Int>? = nil
        var radius: Range<Int>? = nil
        var geometry: Range<Int>? = nil
        var geometryType: Range<Int>? = nil
        var coordinates: Range<Int>? = nil
        /// The shape read for `coordinates` (nil when not read yet), with the type it was read as.
        var shape: (reader: GeoJSONShapeReader, type: GeoJSONShapeReader.GeometryType, coordinates: Range<Int>)? = nil
    }

    /// Reads the value at the scanner's position (whitespace skipped) as feature `index`.
    /// `depth` is the nesting of the value's container (0 for a GeoJSONSeq record, 2 for an
    /// element of a FeatureCollection's `features`).
    ///
    /// - Throws: ``JSONSyntaxError`` when the text is not JSON (nothing is then kept).
    mutating func read(_ s: inout GeoJSONScanner, index: Int, depth: Int) throws(JSONSyntaxError) -> Outcome {
        guard s.current == UInt8(ascii: "{") else {
            let kind = s.current.map(Self.typeName) ?? "nothing"
            try s.skipValue(depth: depth)
            return .problem(id: nil, reason: "expected a Feature object, found \(kind)")
        }
        let mark = (vertices: records.vertices.count, rings: records.vertexStarts.count, parts: records.ringStarts.count)
        members.removeAll(keepingCapacity: true)
        memberEnds.removeAll(keepingCapacity: true)
        var c = Captures()
        do {
            try readMembers(&s, depth: depth, mark: mark, &c)
        } catch {
            rollBack(to: mark)
            throw error
        }
        let outcome = decide(s, c, index: index, depth: depth)
        if case .problem = outcome { rollBack(to: mark) }
        return outcome
    }

    private mutating func rollBack(to mark: (vertices: Int, rings: Int, parts: Int)) {
        records.vertices.removeLast(records.vertices.count - mark.vertices)
        records.vertexStarts.removeLast(records.vertexStarts.count - mark.rings)
        records.ringStarts.removeLast(records.ringStarts.count - mark.parts)
    }

    /// The feature object's members, captured.
    private mutating func readMembers(
        _ s: inout GeoJSONScanner, depth: Int, mark: (vertices: Int, rings: Int, parts: Int), _ c: inout Captures
    ) throws(JSONSyntaxError) {
        let inner = depth &+ 1
        if try s.enter(depth: inner, close: UInt8(ascii: "}")) { return }
        repeat {
            let name = try s.memberName()
            let start = s.i
            if s.equals(name, "geometry") {
                // A repeated member: only the last one counts.
                c.geometryType = nil; c.coordinates = nil; c.shape = nil
                rollBack(to: mark)
                if s.current == UInt8(ascii: "{") {
                    try readGeometry(&s, depth: inner, &c)
                } else {
                    try s.skipValue(depth: inner)
                }
                c.geometry = start..<s.i
            } else if s.equals(name, "properties") {
                members.removeAll(keepingCapacity: true)
                memberEnds.removeAll(keepingCapacity: true)
                c.propertiesID = nil; c.level = nil; c.library = nil; c.rank = nil; c.dwell = nil; c.radius = nil
                if s.current == UInt8(ascii: "{") {
                    try readProperties(&s, depth: inner, &c)
                } else {
                    try s.skipValue(depth: inner)
                }
                c.properties = start..<s.i
            } else {
                try s.skipValue(depth: inner)
                if s.equals(name, "type") { c.type = start..<s.i } else if s.equals(name, "id") { c.id = start..<s.i }
            }
        } while try s.separator(close: UInt8(ascii: "}"))
    }

    /// The properties object: modelled members captured, the others written compactly.
    private mutating func readProperties(_ s: inout GeoJSONScanner, depth: Int, _ c: inout Captures) throws(JSONSyntaxError) {
        let inner = depth &+ 1
        if try s.enter(depth: inner, close: UInt8(ascii: "}")) { return }
        repeat {
            let name = try s.memberName()
            let start = s.i
            if s.equals(name, "id") || s.equals(name, "level") || s.equals(name, "library") || s.equals(name, "rank")
                || s.equals(name, "dwellSeconds")
            {
                try s.skipValue(depth: inner)
                let range = start..<s.i
                if s.equals(name, "id") { c.propertiesID = range } else if s.equals(name, "level") { c.level = range }
                else if s.equals(name, "library") { c.library = range } else if s.equals(name, "rank") { c.rank = range }
                else { c.dwell = range }
                continue
            }
            s.appendCompact(name, to: &members)
            members.append(UInt8(ascii: ":"))
            try s.writeValue(depth: inner, to: &members)
            let isRadius = s.equals(name, "radius")
            if isRadius { c.radius = start..<s.i }
            memberEnds.append((members.count, isRadius))
        } while try s.separator(close: UInt8(ascii: "}"))
    }

    /// The geometry object: its type and coordinates (read into the records as soon as the
    /// type is known; again from the captured range if a later member changes either).
    private mutating func readGeometry(_ s: inout GeoJSONScanner, depth: Int, _ c: inout Captures) throws(JSONSyntaxError) {
        let inner = depth &+ 1
        let mark = (records.vertices.count, records.vertexStarts.count, records.ringStarts.count)
        if try s.enter(depth: inner, close: UInt8(ascii: "}")) { return }
        repeat {
            let name = try s.memberName()
            let start = s.i
            if s.equals(name, "coordinates") {
                if let type = c.geometryType.flatMap({ Self.geometryType(s, $0) }) {
                    rollBack(to: mark)
                    let reader = try GeoJSONShapeReader.read(type, present: true, scanner: &s, depth: inner, into: &records)
                    c.shape = (reader, type, start..<s.i)
                } else {
                    try s.skipValue(depth: inner)
                }
                c.coordinates = start..<s.i
            } else {
                try s.skipValue(depth: inner)
                if s.equals(name, "type") { c.geometryType = start..<s.i }
            }
        } while try s.separator(close: UInt8(ascii: "}"))
        // The shape must be the one of the last type and the last coordinates.
        guard let type = c.geometryType.flatMap({ Self.geometryType(s, $0) }) else {
            rollBack(to: mark)
            c.shape = nil
            return
        }
        if let shape = c.shape, shape.type == type, shape.coordinates == c.coordinates { return }
        rollBack(to: mark)
        var again = GeoJSONScanner(base: s.base, from: c.coordinates?.lowerBound ?? s.i, end: c.coordinates?.upperBound ?? s.i)
        let reader = try GeoJSONShapeReader.read(type, present: c.coordinates != nil, scanner: &again, depth: inner, into: &records)
        c.shape = (reader, type, c.coordinates ?? s.i..<s.i)
    }

    /// The geometry type a `type` value names, or nil.
    private static func geometryType(_ s: GeoJSONScanner, _ range: Range<Int>) -> GeoJSONShapeReader.GeometryType? {
        guard s.base[range.lowerBound] == UInt8(ascii: "\"") else { return nil }
        var copy = GeoJSONScanner(base: s.base, from: range.lowerBound, end: range.upperBound)
        guard let token = try? copy.string() else { return nil }
        if s.equals(token, "Point") { return .point }
        if s.equals(token, "Polygon") { return .polygon }
        if s.equals(token, "MultiPolygon") { return .multiPolygon }
        return nil
    }

    /// A JSON value's type as the messages name it, from its first byte.
    static func typeName(_ first: UInt8) -> String {
        switch first {
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        case UInt8(ascii: "n"): "null"
        default: "a number"
        }
    }
}
