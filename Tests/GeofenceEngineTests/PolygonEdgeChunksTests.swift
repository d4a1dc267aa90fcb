import Foundation
import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// The pruned polygon edge distance against its slow twin, the full ``EdgeDistance`` scan.
@Suite("Polygon edge runs")
struct PolygonEdgeChunksTests {
    /// Bitwise equality with the unpruned distance, at points near and far.
    static func check(_ shape: MultiPolygon, around center: Coordinate, spread: Double, _ rng: inout SeededGenerator, context: String) {
        let chunks = PolygonEdgeChunks(shape)
        var scratch: [Double] = []
        for _ in 0..<30 {
            let p = Sphere.destination(from: center, distance: rng.logUniform(1, spread), bearing: rng.double(0...(2 * .pi)))
            let fast = chunks.distance(from: p, bounds: &scratch)
            let slow = ContainmentEvaluator.edgeDistance(from: p, to: shape)
            #expect(fast == slow, "\(context) at \(p): \(fast) vs \(slow)")
        }
        // Every edge is in exactly one run.
        let edges = shape.allRings.reduce(0) { $0 + $1.count - 1 }
        #expect(chunks.chunks.reduce(0) { $0 + $1.last - $1.first } == edges, "\(context)")
    }

    @Test("equals EdgeDistance on random polygons of up to 10 km", arguments: [81, 82] as [UInt64])
    func randomPolygons(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<25 {
            let center = Coordinate(latitude: rng.double(-75...75), longitude: rng.double(-180...180))
            let size = rng.logUniform(50, 5_000)
            let shape = RandomWorld(center: center, spread: 0).polygon(around: center, size: size, &rng)
            guard case .polygon(let multi) = shape else { continue }
            Self.check(multi, around: center, spread: size * 20, &rng, context: "seed \(seed) trial \(trial)")
        }
    }

    @Test("equals EdgeDistance on the Austin neighbourhoods")
    func austin() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("data/austin/fences.geojson").path
        let set = try FenceSet.load(path: path)
        var rng = SeededGenerator(seed: 83)
        var polygons = 0
        for fence in set.fences {
            guard case .polygon(let shape) = fence.shape, let circle = fence.enclosingCircle else { continue }
            polygons += 1
            Self.check(shape, around: circle.center, spread: circle.radius * 3, &rng, context: "seed 83 fence \(fence.geofenceID)")
        }
        #expect(polygons == 70)
    }

    @Test("an edge across the antimeridian gets a box of every longitude")
    func antimeridianRun() {
        let ring = Ring(closing: [
            Coordinate(latitude: 0, longitude: 179.9), Coordinate(latitude: 0, longitude: -179.9),
            Coordinate(latitude: 0.1, longitude: -179.9), Coordinate(latitude: 0.1, longitude: 179.9),
        ])
        let shape = MultiPolygon(polygons: [Polygon(exterior: ring)])
        let chunks = PolygonEdgeChunks(shape)
        #expect(chunks.chunks.count == 1 && chunks.chunks[0].box.minLongitude == -180 && chunks.chunks[0].box.maxLongitude == 180)
        var scratch: [Double] = []
        let p = Coordinate(latitude: -0.01, longitude: 180)
        #expect(chunks.distance(from: p, bounds: &scratch) == ContainmentEvaluator.edgeDistance(from: p, to: shape))
        #expect(chunks.distance(from: p, bounds: &scratch) < 1_200)
    }
}
