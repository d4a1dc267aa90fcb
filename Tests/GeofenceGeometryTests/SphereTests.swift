import Foundation
@_spi(Engine) import GeofenceGeometry
import GeofenceTestSupport
import Testing

@Suite("Sphere")
struct SphereTests {
    @Test("known great-circle distances")
    func knownDistances() {
        // One degree of arc on the IUGG sphere.
        let oneDegree = Sphere.radius * .pi / 180
        #expect(abs(Sphere.distance(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 1, longitude: 0)) - oneDegree) < 1e-6)
        #expect(abs(Sphere.distance(Coordinate(latitude: 0, longitude: 179.5), Coordinate(latitude: 0, longitude: -179.5)) - oneDegree) < 1e-6)
        // Pole to pole is half a circumference.
        #expect(abs(Sphere.distance(Coordinate(latitude: 90, longitude: 0), Coordinate(latitude: -90, longitude: 0)) - .pi * Sphere.radius) < 1e-6)
        #expect(Sphere.distance(Coordinate(latitude: 12, longitude: 34), Coordinate(latitude: 12, longitude: 34)) == 0)
    }

    @Test("capThreshold agrees with distance <= radius away from the boundary")
    func thresholdMatchesDistance() {
        for seed in testSeeds(20) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<500 {
                let a = Coordinate(latitude: rng.double(-89...89), longitude: rng.double(-180...180))
                let radius = rng.double(1...200_000)
                let b = Sphere.destination(from: a, distance: rng.double(0...(2 * radius)), bearing: rng.double(0...(2 * .pi)))
                let d = Sphere.distance(a, b)
                guard abs(d - radius) > 1e-6 * radius else { continue }
                let inside = Sphere.haversineTerm(a, b) <= Sphere.capThreshold(radius: radius)
                #expect(inside == (d <= radius), "seed \(seed): \(a) \(b) r=\(radius) d=\(d)")
            }
        }
    }

    @Test("destination travels the asked distance")
    func destinationDistance() {
        for seed in testSeeds(10) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<200 {
                let a = Coordinate(latitude: rng.double(-85...85), longitude: rng.double(-180...180))
                let d = rng.double(0...1_000_000)
                let b = Sphere.destination(from: a, distance: d, bearing: rng.double(0...(2 * .pi)))
                #expect(b.isValid, "seed \(seed)")
                #expect(abs(Sphere.distance(a, b) - d) < 1e-3, "seed \(seed): \(a) → \(b), wanted \(d)")
            }
        }
    }

    @Test("wrapLongitude")
    func wrap() {
        #expect(Sphere.wrapLongitude(190) == -170)
        #expect(Sphere.wrapLongitude(-190) == 170)
        #expect(Sphere.wrapLongitude(180) == 180)
        #expect(Sphere.wrapLongitude(-180) == -180)
        #expect(Sphere.wrapLongitude(540) == -180)
    }

    @Test("coordinate validity names the bad number")
    func coordinateValidity() {
        #expect(Coordinate(latitude: 90, longitude: -180).isValid)
        #expect(Coordinate(latitude: 90.0001, longitude: 0).invalidReason?.contains("latitude") == true)
        #expect(Coordinate(latitude: 0, longitude: .nan).invalidReason?.contains("longitude") == true)
        #expect(Coordinate(latitude: .infinity, longitude: 0).invalidReason?.contains("finite") == true)
    }
}
