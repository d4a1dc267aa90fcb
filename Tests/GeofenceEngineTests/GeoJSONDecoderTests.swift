@testable import GeofenceEngine
import Testing

/// A FeatureCollection around the given feature texts.
func collection(_ features: [String]) -> String {
    #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
}

/// The fences (in feature order) and problems the reader finds in a FeatureCollection of `features`.
func decode(_ features: [String]) throws -> (fences: [Fence], problems: [FenceValidationError.Problem]) {
    try readFences(Array(collection(features).utf8))
}

/// The fences (in feature order) and problems the reader finds in a text.
func readFences(_ text: [UInt8], name: String = "test.geojson", repair: Bool = false) throws -> (fences: [Fence], problems: [FenceValidationError.Problem]) {
    var report = try text.withUnsafeBytes { try FenceSet.inspect(bytes: $0, name: name, repair: repair) }
    let problems = report.problems
    report.problems = []
    let set = FenceSet(report: &report)
    return (Array(set.fences).sorted { $0.featureIndex < $1.featureIndex }, problems)
}

let unitSquare = #"{"type":"Polygon","coordinates":[[[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]]]}"#

@Suite("GeoJSON fences")
struct GeoJSONDecoderTests {
    @Test("circles, polygons, multipolygons and every modelled property")
    func decodesEverything() throws {
        let (fences, problems) = try decode([
            #"{"type":"Feature","properties":{"id":"c","radius":25.5,"level":2,"library":"stops","rank":-1,"dwellSeconds":90,"name":"Café","extra":{"n":1.0}},"geometry":{"type":"Point","coordinates":[-97.7,30.2,150]}}"#,
            #"{"type":"Feature","id":42,"properties":null,"geometry":\#(unitSquare)}"#,
            #"{"type":"Feature","properties":{"id":"m","level":"3"},"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[2,2],[3,2],[3,3],[2,2]],[[2.5,2.2],[2.9,2.2],[2.9,2.6],[2.5,2.2]]]]}}"#,
        ])
        #expect(problems.isEmpty, "\(problems)")
        #expect(fences.map(\.geofenceID) == ["c", "42", "m"])
        let c = fences[0]
        #expect(c.shape == .circle(center: Coordinate(latitude: 30.2, longitude: -97.7), radius: 25.5))
        #expect(c.level == 2 && c.library == "stops" && c.rank == -1 && c.dwellSeconds == 90)
        // Unmodelled properties pass through untouched, in order, number literals kept.
        #expect(JSONWriter.string(.object(c.properties)) == #"{"name":"Café","extra":{"n":1.0}}"#)
        #expect(fences[1].rank == 0 && fences[1].level == nil && fences[1].featureIndex == 1)
        guard case .polygon(let multi) = fences[2].shape else { Issue.record("not a polygon"); return }
        #expect(multi.polygons.count == 2 && multi.polygons[1].holes.count == 1)
        #expect(fences[2].level == 3)
    }

    @Test("each bad feature is reported with its index, id and reason", arguments: [
        (#"{"type":"Feature","properties":{},"geometry":\#(unitSquare)}"#, "missing id"),
        (#"{"type":"Feature","properties":{"id":""},"geometry":\#(unitSquare)}"#, "id is an empty string"),
        (#"{"type":"Feature","properties":{"id":"p"},"geometry":{"type":"Point","coordinates":[1,2]}}"#, "needs properties.radius"),
        (#"{"type":"Feature","properties":{"id":"p","radius":0},"geometry":{"type":"Point","coordinates":[1,2]}}"#, "radius must be > 0"),
        (#"{"type":"Feature","properties":{"id":"p","radius":-5},"geometry":{"type":"Point","coordinates":[1,2]}}"#, "radius must be > 0"),
        (#"{"type":"Feature","properties":{"id":"p","radius":2000000},"geometry":{"type":"Point","coordinates":[1,2]}}"#, "exceeds the maximum"),
        (#"{"type":"Feature","properties":{"id":"p","radius":"big"},"geometry":{"type":"Point","coordinates":[1,2]}}"#, "radius must be a number"),
        (#"{"type":"Feature","properties":{"id":"p","radius":5},"geometry":{"type":"Point","coordinates":[1,91]}}"#, "latitude 91.0 is outside"),
        (#"{"type":"Feature","properties":{"id":"p","radius":5},"geometry":{"type":"Point","coordinates":[-181,1]}}"#, "longitude -181.0 is outside"),
        (#"{"type":"Feature","properties":{"id":"l"},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}"#, "unknown geometry type \"LineString\""),
        (#"{"type":"Feature","properties":{"id":"o"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}}"#, "exterior ring is not closed"),
        (#"{"type":"Feature","properties":{"id":"s"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}}"#, "has 3 positions; a ring needs at least 4"),
        (#"{"type":"Feature","properties":{"id":"h"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]],[[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.2]]]}}"#, "hole 1 is not closed"),
        (#"{"type":"Feature","properties":{"id":"g"},"geometry":null}"#, "missing geometry"),
        (#"{"type":"Feature","properties":{"id":"v","level":1.5},"geometry":\#(unitSquare)}"#, "level must be an integer"),
        (#"{"type":"Feature","properties":{"id":"r","rank":"first"},"geometry":\#(unitSquare)}"#, "rank must be an integer"),
        (#"{"type":"Feature","properties":{"id":"d","dwellSeconds":-1},"geometry":\#(unitSquare)}"#, "dwellSeconds must be"),
        (#"{"type":"Feature","properties":{"id":"x"},"geometry":{"type":"Polygon","coordinates":[[[0,0],["a",0],[1,1],[0,0]]]}}"#, "must hold numbers"),
        (#"[1,2]"#, "expected a Feature object"),
    ])
    func problems(feature: String, reason: String) throws {
        let (fences, problems) = try decode([#"{"type":"Feature","properties":{"id":"ok","radius":1},"geometry":{"type":"Point","coordinates":[0,0]}}"#, feature])
        #expect(fences.count == 1)
        #expect(problems.count == 1)
        #expect(problems.first?.featureIndex == 1)
        #expect(problems.first?.reason.contains(reason) == true, "got \(problems.first?.description ?? "nothing")")
        #expect(problems.first?.description.hasPrefix("feature 1 (") == true)
    }

    @Test("a document that is not a FeatureCollection is a file error")
    func notACollection() throws {
        for text in [#"[1]"#, #"{"type":"Topology"}"#, #"{"type":"FeatureCollection"}"#] {
            #expect(throws: FileError.self) { try readFences(Array(text.utf8)) }
        }
    }
}
