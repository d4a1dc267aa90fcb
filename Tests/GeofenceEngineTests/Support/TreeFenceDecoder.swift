import GeofenceEngine

/// The tree decoder the streaming reader replaced, kept as its twin: it turns a parsed
/// GeoJSON FeatureCollection (a ``JSONValue``) into fences, structurally checked (semantics
/// §1). Structural problems (missing id, bad radius, unclosed ring, out-of-range coordinate,
/// unknown geometry type, …) are collected per feature; geometric validity (GEOS) and
/// duplicate ids are checked afterwards by ``FenceValidator``.
enum TreeFenceDecoder {
    /// Largest circle radius accepted, in metres.
    static let maximumRadius: Double = 1_000_000

    /// Property names the engine consumes; all others pass through to events.
    static let modelledProperties: Set<String> = ["id", "level", "library", "rank", "dwellSeconds"]

    /// The fences of a FeatureCollection, and the problems of the features that are not fences.
    ///
    /// - Throws: ``FileError`` when the document is not a FeatureCollection at all.
    static func decode(_ document: JSONValue, path: String) throws(FileError)
        -> (fences: [Fence], problems: [FenceValidationError.Problem])
    {
        guard let root = document.objectValue else {
            throw FileError(path: path, reason: "expected a GeoJSON FeatureCollection object, found \(document.typeName)")
        }
        guard root["type"]?.stringValue == "FeatureCollection" else {
            let found = root["type"].map { JSONWriter.string($0) } ?? "no \"type\""
            throw FileError(path: path, reason: "expected a GeoJSON FeatureCollection (\"type\": \"FeatureCollection\"), found \(found)")
        }
        guard let features = root["features"]?.arrayValue else {
            throw FileError(path: path, reason: "the FeatureCollection has no \"features\" array")
        }
        var fences: [Fence] = []
        var problems: [FenceValidationError.Problem] = []
        fences.reserveCapacity(features.count)
        for (index, feature) in features.enumerated() {
            switch decodeFeature(feature, index: index) {
            case .success(let fence): fences.append(fence)
            case .failure(let problem): problems.append(problem)
            }
        }
        return (fences, problems)
    }

    /// One feature as a fence, or the first problem found in it.
    static func decodeFeature(_ value: JSONValue, index: Int) -> Result<Fence, FenceValidationError.Problem> {
        var id: String? = nil
        func fail(_ reason: String) -> Result<Fence, FenceValidationError.Problem> {
            .failure(FenceValidationError.Problem(featureIndex: index, id: id, reason: reason))
        }
        guard let feature = value.objectValue else { return fail("expected a Feature object, found \(value.typeName)") }
        let properties: JSONObject
        switch feature["properties"] {
        case nil, .null?: properties = JSONObject()
        case .object(let o)?: properties = o
        case let other?: return fail("\"properties\" must be an object, found \(other.typeName)")
        }
        // id: properties.id, else the Feature's id; numbers become their literal text.
        switch idText(properties["id"]) ?? idText(feature["id"]) {
        case .success(let text)?: id = text
        case .failure(let reason)?: return fail(reason.text)
        case nil: return fail("missing id (expected properties.id or the Feature's id)")
        }
        guard feature["type"]?.stringValue == "Feature" else {
            return fail("expected \"type\": \"Feature\", found \(feature["type"].map { JSONWriter.string($0) } ?? "no type")")
        }

        let level: Int?
        switch properties["level"] {
        case nil, .null?: level = nil
        case let v?:
            guard let l = integer(v) else { return fail("level must be an integer, found \(JSONWriter.string(v))") }
            level = l
        }
        let library: String?
        switch properties["library"] {
        case nil, .null?: library = nil
        case .string(let s)?: library = s
        case let v?: return fail("library must be a string, found \(v.typeName)")
        }
        let rank: Int
        switch properties["rank"] {
        case nil, .null?: rank = 0
        case let v?:
            guard let r = integer(v) else { return fail("rank must be an integer, found \(JSONWriter.string(v))") }
            rank = r
        }
        let dwell: Double?
        switch properties["dwellSeconds"] {
        case nil, .null?: dwell = nil
        case let v?:
            guard let d = v.doubleValue, d.isFinite, d >= 0 else {
                return fail("dwellSeconds must be a number of seconds >= 0, found \(JSONWriter.string(v))")
            }
            dwell = d
        }

        guard let geometryValue = feature["geometry"], geometryValue != .null else {
            return fail("missing geometry")
        }
        guard let geometry = geometryValue.objectValue else { return fail("geometry must be an object") }
        let type = geometry["type"]?.stringValue ?? "(none)"
        let coordinates = geometry["coordinates"]
        var passThrough = properties.removing(modelledProperties)
        let shape: Fence.Shape
        switch type {
        case "Point":
            let center: Coordinate
            switch position(coordinates, what: "Point coordinates") {
            case .success(let c): center = c
            case .failure(let reason): return fail(reason.text)
            }
            guard let radiusValue = properties["radius"], radiusValue != .null else {
                return fail("a Point fence needs properties.radius (metres)")
            }
            guard let radius = radiusValue.doubleValue else {
                return fail("radius must be a number of metres, found \(JSONWriter.string(radiusValue))")
            }
            guard radius.isFinite, radius > 0 else { return fail("radius must be > 0 metres, found \(JSONWriter.string(radiusValue))") }
            guard radius <= maximumRadius else {
                return fail("radius \(JSONWriter.string(radiusValue)) m exceeds the maximum of 1000000 m")
            }
            passThrough = passThrough.removing(["radius"])
            shape = .circle(center: center, radius: radius)
        case "Polygon":
            switch polygon(coordinates, what: "Polygon") {
            case .success(let p): shape = .polygon(MultiPolygon(polygons: [p]))
            case .failure(let reason): return fail(reason.text)
            }
        case "MultiPolygon":
            guard let parts = coordinates?.arrayValue else { return fail("MultiPolygon coordinates must be an array of polygons") }
            guard !parts.isEmpty else { return fail("MultiPolygon has no polygons") }
            var polygons: [Polygon] = []
            for (i, part) in parts.enumerated() {
                switch polygon(part, what: "MultiPolygon polygon \(i)") {
                case .success(let p): polygons.append(p)
                case .failure(let reason): return fail(reason.text)
                }
            }
            shape = .polygon(MultiPolygon(polygons: polygons))
        default:
            return fail("unknown geometry type \(JSONWriter.quoted(type)) (expected Point with properties.radius, Polygon or MultiPolygon)")
        }
        return .success(Fence(
            geofenceID: id!, shape: shape, level: level, library: library, rank: rank, dwellSeconds: dwell,
            properties: passThrough, featureIndex: index))
    }

    private static func idText(_ value: JSONValue?) -> Result<String, Reason>? {
        switch value {
        case nil, .null?: return nil
        case .string(let s)?: return s.isEmpty ? .failure(Reason("id is an empty string")) : .success(s)
        case .number(let literal)?: return .success(literal)
        case let v?: return .failure(Reason("id must be a string or a number, found \(v.typeName)"))
        }
    }

    private static func integer(_ value: JSONValue) -> Int? {
        if let i = value.intValue { return i }
        if let s = value.stringValue { return Int(s) }
        return nil
    }

    private static func position(_ value: JSONValue?, what: String) -> Result<Coordinate, Reason> {
        guard let array = value?.arrayValue, array.count >= 2 else {
            return .failure(Reason("\(what) must be a position [longitude, latitude]"))
        }
        guard let lon = array[0].doubleValue, let lat = array[1].doubleValue else {
            return .failure(Reason("\(what) must hold numbers, found \(JSONWriter.string(value!))"))
        }
        let c = Coordinate(latitude: lat, longitude: lon)
        if let reason = c.invalidReason { return .failure(Reason("\(what): \(reason)")) }
        return .success(c)
    }

    private static func polygon(_ value: JSONValue?, what: String) -> Result<Polygon, Reason> {
        guard let ringValues = value?.arrayValue else { return .failure(Reason("\(what) coordinates must be an array of rings")) }
        guard !ringValues.isEmpty else { return .failure(Reason("\(what) has no rings")) }
        var rings: [Ring] = []
        for (r, ringValue) in ringValues.enumerated() {
            let name = r == 0 ? "\(what) exterior ring" : "\(what) hole \(r)"
            guard let positions = ringValue.arrayValue else { return .failure(Reason("\(name) must be an array of positions")) }
            var flat: [Double] = []
            flat.reserveCapacity(positions.count * 2)
            for (p, positionValue) in positions.enumerated() {
                switch position(positionValue, what: "\(name) position \(p)") {
                case .success(let c): flat.append(c.longitude); flat.append(c.latitude)
                case .failure(let reason): return .failure(reason)
                }
            }
            guard positions.count >= 4 else {
                return .failure(Reason("\(name) has \(positions.count) positions; a ring needs at least 4"))
            }
            let n = flat.count
            guard flat[0] == flat[n - 2], flat[1] == flat[n - 1] else {
                return .failure(Reason("\(name) is not closed (its last position must repeat the first)"))
            }
            rings.append(Ring(positions: flat))
        }
        return .success(Polygon(exterior: rings[0], holes: Array(rings.dropFirst())))
    }
}

/// A decoding failure's reason, as an `Error` for `Result`.
struct Reason: Error {
    let text: String
    init(_ text: String) { self.text = text }
}
