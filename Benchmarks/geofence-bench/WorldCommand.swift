import ArgumentParser
import GeofenceEngine

/// `geofence-bench world`: a larger fence world tiled from a smaller one, reproducibly.
struct WorldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "world",
        abstract: "Tile a fence file into a larger world (gen_world.py's 100k ×10 = the 1M world), as a FeatureCollection and as GeoJSONSeq.",
        discussion: """
            Tile t (0 ..< --tiles) is every feature of --fences with its longitudes moved east by \
            t × --shift degrees and its id (the Feature's `id`, or `properties.id`) made unique: \
            a number id n becomes n + t × (number of features), a string id gets "-t" appended \
            (tile 0 keeps the original). Numbers of tile 0 are written as read; moved ones as \
            the shortest text of the moved value. The same input gives the same bytes.
            """)

    @Option(help: "The fence FeatureCollection to tile (e.g. .build-peers/world/fences_100000.geojson).")
    var fences: String

    @Option(help: "Number of tiles.")
    var tiles = 10

    @Option(help: "Degrees east between tiles.")
    var shift = 0.6

    @Option(help: "Write the FeatureCollection here.")
    var output: String

    @Option(help: "Also write the features as GeoJSONSeq (one per line) here.")
    var seq: String?

    func run() throws {
        guard case .object(let root) = try JSONParser.parse(try FileBytes.read(fences)),
            let features = root["features"]?.arrayValue
        else { throw BenchError("\(fences): not a FeatureCollection") }
        let collection = try OutputSink(path: output)
        let sequence = try seq.map { try OutputSink(path: $0) }
        try collection.write(Array(#"{"type":"FeatureCollection","features":["#.utf8))
        var first = true
        for t in 0..<tiles {
            var chunk: [UInt8] = [], lines: [UInt8] = []
            for feature in features {
                let moved = Self.tile(feature, t, count: features.count, shift: shift)
                if !first { chunk.append(UInt8(ascii: ",")) }
                first = false
                chunk.append(0x0A)
                JSONWriter.write(moved, to: &chunk)
                JSONWriter.write(moved, to: &lines)
                lines.append(0x0A)
            }
            try collection.write(chunk)
            try sequence?.write(lines)
        }
        try collection.write(Array("\n]}\n".utf8))
        try collection.commit()
        try sequence?.commit()
        print("wrote \(features.count * tiles) features to \(output)\(seq.map { " and \($0)" } ?? "")")
    }

    /// Feature `feature` of tile `t`.
    static func tile(_ feature: JSONValue, _ t: Int, count: Int, shift: Double) -> JSONValue {
        guard t > 0, case .object(var object) = feature else { return feature }
        for k in object.members.indices {
            switch object.members[k].key {
            case "id": object.members[k].value = uniqueID(object.members[k].value, t, count: count)
            case "properties":
                guard case .object(var properties) = object.members[k].value else { continue }
                for p in properties.members.indices where properties.members[p].key == "id" {
                    properties.members[p].value = uniqueID(properties.members[p].value, t, count: count)
                }
                object.members[k].value = .object(properties)
            case "geometry":
                guard case .object(var geometry) = object.members[k].value else { continue }
                for g in geometry.members.indices where geometry.members[g].key == "coordinates" {
                    geometry.members[g].value = moved(geometry.members[g].value, by: Double(t) * shift)
                }
                object.members[k].value = .object(geometry)
            default: continue
            }
        }
        return .object(object)
    }

    static func uniqueID(_ id: JSONValue, _ t: Int, count: Int) -> JSONValue {
        if let n = id.intValue { return .integer(n + t * count) }
        if let s = id.stringValue { return .string("\(s)-\(t)") }
        return id
    }

    /// Coordinates with every position's longitude moved by `degrees`.
    static func moved(_ value: JSONValue, by degrees: Double) -> JSONValue {
        guard case .array(let elements) = value else { return value }
        if let first = elements.first, case .number = first, let lon = first.doubleValue {
            var position = elements
            position[0] = JSONValue.double(lon + degrees) ?? first
            return .array(position)
        }
        return .array(elements.map { moved($0, by: degrees) })
    }
}
