@_spi(Engine) import GeofenceGeometry
import GeofenceTestSupport
import Testing

@Suite("Bounding boxes of circles and polygons")
struct BoundsTests {
    /// Every point of a random cap (sampled on its rim and inside) lies in one of its boxes,
    /// including caps that cross ±180° or cover a pole.
    @Test("circle boxes hold every point of the cap", arguments: [false, true])
    func capBoxesHoldCap(nearSeams: Bool) {
        for seed in testSeeds(20) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<200 {
                let center = nearSeams
                    ? Coordinate(
                        latitude: rng.chance(0.5) ? rng.double(80...90) * (rng.chance(0.5) ? 1 : -1) : rng.double(-60...60),
                        longitude: rng.chance(0.5) ? rng.double(179...180) : rng.double(-180 ... -179))
                    : Coordinate(latitude: rng.double(-89...89), longitude: rng.double(-180...180))
                let radius = rng.double(1...800_000)
                let boxes = CircleBounds.boxes(center: center, radius: radius)
                #expect(boxes.count <= 2, "seed \(seed)")
                for box in boxes {
                    #expect(box.minLongitude >= -180 && box.maxLongitude <= 180, "seed \(seed): \(box)")
                    #expect(box.minLatitude >= -90 && box.maxLatitude <= 90, "seed \(seed): \(box)")
                }
                for _ in 0..<50 {
                    let p = Sphere.destination(
                        from: center, distance: radius * rng.double(0...1), bearing: rng.double(0...(2 * .pi)))
                    let held = boxes.contains { $0.contains(latitude: p.latitude, longitude: p.longitude) }
                    #expect(held, "seed \(seed): \(p) in cap \(center) r=\(radius) but not in \(boxes)")
                }
            }
        }
    }

    @Test("a cap over a pole spans every longitude")
    func polarCap() {
        let boxes = CircleBounds.boxes(center: Coordinate(latitude: 89.9, longitude: 10), radius: 50_000)
        #expect(boxes == [BoundingBox(minLongitude: -180, minLatitude: boxes[0].minLatitude, maxLongitude: 180, maxLatitude: 90)])
    }

    @Test("a cap crossing the antimeridian is split in two")
    func antimeridianCap() {
        let boxes = CircleBounds.boxes(center: Coordinate(latitude: 0, longitude: 179.999), radius: 1_000)
        #expect(boxes.count == 2)
        #expect(boxes.contains { $0.maxLongitude == 180 })
        #expect(boxes.contains { $0.minLongitude == -180 })
    }

    @Test("parts on both sides of ±180 keep separate boxes")
    func coveringSplits() {
        let east = BoundingBox(minLongitude: 179, minLatitude: -1, maxLongitude: 180, maxLatitude: 1)
        let west = BoundingBox(minLongitude: -180, minLatitude: -1, maxLongitude: -179, maxLatitude: 1)
        #expect(Set(BoundingBox.covering([east, west])) == [east, west])
        let near = BoundingBox(minLongitude: 10, minLatitude: 0, maxLongitude: 11, maxLatitude: 1)
        #expect(BoundingBox.covering([near, east]) == [near.union(east)])
    }

    /// The box distance is a lower bound of the distance to any point in the box, and exact
    /// (within a metre) against dense sampling of the box's boundary.
    @Test("box distance is a tight lower bound")
    func boxDistance() {
        for seed in testSeeds(10) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<100 {
                let lon0 = rng.double(-180...170), lat0 = rng.double(-80...70)
                let box = BoundingBox(
                    minLongitude: lon0, minLatitude: lat0,
                    maxLongitude: min(180, lon0 + rng.double(0...10)), maxLatitude: min(90, lat0 + rng.double(0...10)))
                let p = Coordinate(latitude: rng.double(-90...90), longitude: rng.double(-180...180))
                let bound = box.distance(to: p)
                var sampled = Double.infinity
                let n = 400
                for k in 0...n {
                    let t = Double(k) / Double(n)
                    let lat = box.minLatitude + (box.maxLatitude - box.minLatitude) * t
                    let lon = box.minLongitude + (box.maxLongitude - box.minLongitude) * t
                    for q in [
                        Coordinate(latitude: lat, longitude: box.minLongitude), Coordinate(latitude: lat, longitude: box.maxLongitude),
                        Coordinate(latitude: box.minLatitude, longitude: lon), Coordinate(latitude: box.maxLatitude, longitude: lon),
                    ] {
                        sampled = min(sampled, Sphere.distance(p, q))
                    }
                }
                if box.contains(latitude: p.latitude, longitude: p.longitude) { sampled = 0 }
                #expect(bound <= sampled + 1e-6, "seed \(seed): bound \(bound) > sampled \(sampled) for \(p) \(box)")
                // Sampling at 1/400 of a side over-estimates by at most ~ side/800.
                let side = Sphere.distance(
                    Coordinate(latitude: box.minLatitude, longitude: box.minLongitude),
                    Coordinate(latitude: box.maxLatitude, longitude: box.maxLongitude))
                #expect(sampled - bound <= side / 400 + 1, "seed \(seed): bound \(bound) ≪ sampled \(sampled) for \(p) \(box)")
            }
        }
    }
}
