import GeofenceGeometry

/// A geometry's coordinates read straight into fence records, with the first problem found
/// (semantics §1: the same checks and words as the tree decoder).
///
/// The scanner must be at the coordinates value (or `present` false when the geometry has
/// none). Every byte of the value is checked as JSON even after a problem, since a syntax
/// error anywhere in the file takes precedence. Polygon rings go into `records` (vertices,
/// ring and part starts: the caller marks and rolls back); a point is returned.
struct GeoJSONShapeReader {
    /// A point's position, or nil.
    var point: Coordinate? = nil
    /// The first problem, if any.
    var problem: String? = nil

    /// Reads a geometry of `type` ("Point", "Polygon" or "MultiPolygon").
    static func read(
        _ type: GeometryType, present: Bool, scanner: inout GeoJSONScanner, depth: Int, into records: inout FenceRecords
    ) throws(JSONSyntaxError) -> GeoJSONShapeReader {
        var reader = GeoJSONShapeReader()
        switch type {
        case .point:
            reader.point = try reader.position(present: present, &scanner, depth: depth, place: nil)
        case .polygon:
            try reader.polygon(present: present, &scanner, depth: depth, part: nil, into: &records)
        case .multiPolygon:
            try reader.multiPolygon(present: present, &scanner, depth: depth, into: &records)
        }
        return reader
    }

    enum GeometryType {
        case point, polygon, multiPolygon
    }

    /// Records the problem unless one came first.
    @inline(__always)
    private mutating func report(_ text: @autoclosure () -> String) {
        if problem == nil { problem = text() }
    }

    private mutating func multiPolygon(
        present: Bool, _ s: inout GeoJSONScanner, depth: Int, into records: inout FenceRecords
    ) throws(JSONSyntaxError) {
        guard present, s.current == UInt8(ascii: "[") else {
            report("MultiPolygon coordinates must be an array of polygons")
            if present { try s.skipValue(depth: depth) }
            return
        }
        if try s.enter(depth: depth &+ 1, close: UInt8(ascii: "]")) { report("MultiPolygon has no polygons"); return }
        var part = 0
        repeat {
            s.skipWhitespace()
            if problem != nil {
                try s.skipValue(depth: depth &+ 1)
            } else {
                try polygon(present: true, &s, depth: depth &+ 1, part: part, into: &records)
            }
            part &+= 1
        } while try s.separator(close: UInt8(ascii: "]"))
    }

    /// Which ring (and position) a problem is in, as plain numbers: the words are made only
    /// when a problem is reported (closures that made them cost a retain and a release per
    /// position: 5 % of loading polygons).
    struct Place {
        /// The MultiPolygon part, or nil for a Polygon.
        var part: Int?
        /// 0 the exterior ring, k the k-th hole.
        var ring: Int = 0

        /// "Polygon" or "MultiPolygon polygon k".
        var polygon: String { part.map { "MultiPolygon polygon \($0)" } ?? "Polygon" }
        /// "… exterior ring" or "… hole k".
        var ringName: String { ring == 0 ? "\(polygon) exterior ring" : "\(polygon) hole \(ring)" }
    }

    /// A polygon: a GeoJSON Polygon's coordinates (`part` nil), or part `part` of a MultiPolygon.
    private mutating func polygon(
        present: Bool, _ s: inout GeoJSONScanner, depth: Int, part: Int?, into records: inout FenceRecords
    ) throws(JSONSyntaxError) {
        var place = Place(part: part)
        guard present, s.current == UInt8(ascii: "[") else {
            report("\(place.polygon) coordinates must be an array of rings")
            if present { try s.skipValue(depth: depth) }
            return
        }
        if try s.enter(depth: depth &+ 1, close: UInt8(ascii: "]")) { report("\(place.polygon) has no rings"); return }
        repeat {
            s.skipWhitespace()
            if problem != nil {
                try s.skipValue(depth: depth &+ 1)
            } else {
                try ring(&s, depth: depth &+ 1, place: place, into: &records)
            }
            place.ring &+= 1
        } while try s.separator(close: UInt8(ascii: "]"))
        if problem == nil { records.ringStarts.append(UInt32(records.vertexStarts.count - 1)) }
    }

    /// One ring, at `place` (for messages).
    private mutating func ring(
        _ s: inout GeoJSONScanner, depth: Int, place: Place, into records: inout FenceRecords
    ) throws(JSONSyntaxError) {
        guard s.current == UInt8(ascii: "[") else {
            report("\(place.ringName) must be an array of positions")
            try s.skipValue(depth: depth)
            return
        }
        let first = records.vertices.count
        var count = 0
        if try !s.enter(depth: depth &+ 1, close: UInt8(ascii: "]")) {
            repeat {
                s.skipWhitespace()
                if problem != nil {
                    try s.skipValue(depth: depth &+ 1)
                } else if let c = try position(present: true, &s, depth: depth &+ 1, place: place, index: count) {
                    records.vertices.append(c.longitude)
                    records.vertices.append(c.latitude)
                }
                count &+= 1
            } while try s.separator(close: UInt8(ascii: "]"))
        }
        guard problem == nil else { return }
        guard count >= 4 else {
            report("\(place.ringName) has \(count) positions; a ring needs at least 4")
            return
        }
        let last = records.vertices.count &- 2
        guard records.vertices[first] == records.vertices[last], records.vertices[first &+ 1] == records.vertices[last &+ 1] else {
            report("\(place.ringName) is not closed (its last position must repeat the first)")
            return
        }
        records.vertexStarts.append(UInt32(records.vertices.count / 2))
    }

    /// A position `[longitude, latitude, …]`: the coordinate, or nil with the problem reported.
    /// `place` nil: a Point's coordinates; else position `index` of that ring.
    private mutating func position(
        present: Bool, _ s: inout GeoJSONScanner, depth: Int, place: Place?, index: Int = 0
    ) throws(JSONSyntaxError) -> Coordinate? {
        @inline(never) func what() -> String { place.map { "\($0.ringName) position \(index)" } ?? "Point coordinates" }
        guard present, s.current == UInt8(ascii: "[") else {
            report("\(what()) must be a position [longitude, latitude]")
            if present { try s.skipValue(depth: depth) }
            return nil
        }
        let start = s.i
        var count = 0
        var numbers: (Double?, Double?) = (nil, nil)
        if try !s.enter(depth: depth &+ 1, close: UInt8(ascii: "]")) {
            repeat {
                s.skipWhitespace()
                if count < 2, let b = s.current, b == UInt8(ascii: "-") || (b &- 0x30) <= 9 {
                    let value = try s.numberAndValue().value
                    if count == 0 { numbers.0 = value } else { numbers.1 = value }
                } else {
                    try s.skipValue(depth: depth &+ 1)
                }
                count &+= 1
            } while try s.separator(close: UInt8(ascii: "]"))
        }
        guard count >= 2 else {
            report("\(what()) must be a position [longitude, latitude]")
            return nil
        }
        guard let longitude = numbers.0, let latitude = numbers.1 else {
            report("\(what()) must hold numbers, found \(s.compactText(start..<s.i, depth: depth))")
            return nil
        }
        let c = Coordinate(latitude: latitude, longitude: longitude)
        // The plain test first: the reason is a string, made only for a bad position.
        if !c.isValid {
            report("\(what()): \(c.invalidReason ?? "")")
            return nil
        }
        return c
    }
}
