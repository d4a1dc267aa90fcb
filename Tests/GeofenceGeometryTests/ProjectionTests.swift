import Foundation
@_spi(Engine) import GeofenceGeometry
import GeofenceTestSupport
import Testing

@Suite("Local projection and edge distance")
struct ProjectionTests {
    @Test("projection keeps distances from the centre and round-trips")
    func roundTrip() {
        for seed in testSeeds(10) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<300 {
                let center = Coordinate(latitude: rng.double(-90...90), longitude: rng.double(-180...180))
                let projection = LocalProjection(center: center)
                let p = Sphere.destination(from: center, distance: rng.double(0...100_000), bearing: rng.double(0...(2 * .pi)))
                let xy = projection.project(latitude: p.latitude, longitude: p.longitude)
                let back = projection.unproject(x: xy.x, y: xy.y)
                #expect(abs((xy.x * xy.x + xy.y * xy.y).squareRoot() - Sphere.distance(center, p)) < 1e-3, "seed \(seed)")
                #expect(Sphere.distance(back, p) < 1e-3, "seed \(seed): \(p) → \(xy) → \(back)")
            }
        }
    }

    /// Distance to a ring equals the minimum over a dense sampling of its lon/lat-straight
    /// edges within 1 m, for rings up to 10 km across, anywhere on the globe.
    @Test("edge distance within 1 m of dense sampling", arguments: [false, true])
    func edgeDistance(nearAntimeridian: Bool) {
        for seed in testSeeds(10) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<40 {
                let center = Coordinate(
                    latitude: rng.double(-75...75),
                    longitude: nearAntimeridian ? 179.99 : rng.double(-180...180))
                let size = rng.double(10...5_000)  // radius: up to 10 km across
                var coordinates: [Coordinate] = []
                let n = rng.int(3...12)
                for k in 0..<n {
                    let bearing = 2 * .pi * (Double(k) + rng.double(0...0.8)) / Double(n)
                    coordinates.append(Sphere.destination(from: center, distance: size * rng.double(0.3...1), bearing: bearing))
                }
                let ring = Ring(closing: coordinates)
                let point = Sphere.destination(from: center, distance: rng.double(0...(4 * size)), bearing: rng.double(0...(2 * .pi)))
                let fast = ring.positions.withUnsafeBufferPointer {
                    EdgeDistance.distance(from: point, projection: LocalProjection(center: point), ring: $0)
                }
                var slow = Double.infinity
                for i in 1..<ring.count {
                    let a = ring[i - 1], b = ring[i]
                    var dLon = b.longitude - a.longitude
                    if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
                    let steps = 4000
                    for s in 0...steps {
                        let t = Double(s) / Double(steps)
                        let q = Coordinate(
                            latitude: a.latitude + (b.latitude - a.latitude) * t,
                            longitude: Sphere.wrapLongitude(a.longitude + dLon * t))
                        slow = min(slow, Sphere.distance(point, q))
                    }
                }
                // Sampling at size/4000 steps overshoots by at most a few centimetres.
                #expect(abs(fast - slow) < 1, "seed \(seed): fast \(fast) slow \(slow) point \(point)")
            }
        }
    }
}
