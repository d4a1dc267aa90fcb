import GeofenceGeometry

/// Writes fence geometry back as GeoJSON (RFC 7946, `[lon, lat]`).
package enum GeoJSONFenceEncoder {
    /// The GeoJSON geometry of a shape: Point for a circle (its radius belongs in properties),
    /// Polygon for one part, MultiPolygon for several.
    package static func geometry(_ shape: Fence.Shape) -> JSONValue {
        func number(_ d: Double) -> JSONValue { JSONValue.double(d) ?? .null }
        func ring(_ r: Ring) -> JSONValue {
            .array((0..<r.count).map { i in .array([number(r.positions[2 * i]), number(r.positions[2 * i + 1])]) })
        }
        func polygon(_ p: Polygon) -> JSONValue { .array(p.rings.map(ring)) }
        func object(_ type: String, _ coordinates: JSONValue) -> JSONValue {
            .object(JSONObject(members: [.init(key: "type", value: .string(type)), .init(key: "coordinates", value: coordinates)]))
        }
        switch shape {
        case .circle(let center, _):
            return object("Point", .array([number(center.longitude), number(center.latitude)]))
        case .polygon(let multi) where multi.polygons.count == 1:
            return object("Polygon", polygon(multi.polygons[0]))
        case .polygon(let multi):
            return object("MultiPolygon", .array(multi.polygons.map(polygon)))
        }
    }
}
