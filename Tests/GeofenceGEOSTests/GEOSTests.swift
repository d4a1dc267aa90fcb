import Foundation
import GeofenceGEOS
import GeofenceGeometry
import GeofenceTestSupport
import Testing

/// A square [0, 10]² with a square hole [4, 6]², in lon/lat degrees.
let squareWithHole = MultiPolygon(polygons: [Polygon(
    exterior: Ring(positions: [0, 0, 10, 0, 10, 10, 0, 10, 0, 0]),
    holes: [Ring(positions: [4, 4, 4, 6, 6, 6, 6, 4, 4, 4])])])

@Suite("GEOS door")
struct GEOSTests {
    @Test("versions are reported and the 3.11 path uses the C++ locator")
    func versions() {
        #expect(GEOSContext.runtimeVersion.hasPrefix(GEOSContext.compiledVersion))
        if GEOSContext.compiledVersion.hasPrefix("3.11") {
            #expect(GEOSContext.locatorBackend.contains("IndexedPointInAreaLocator"))
        }
    }

    @Test("covers: inside, edge and vertex inside; hole and outside out")
    func coversBoundaryAndHoles() throws {
        let context = try GEOSContext()
        let locator = try PolygonLocator(context: context, shape: squareWithHole)
        #expect(try locator.covers(latitude: 1, longitude: 1))
        #expect(try locator.covers(latitude: 0, longitude: 5))  // edge
        #expect(try locator.covers(latitude: 10, longitude: 10))  // vertex
        #expect(try locator.covers(latitude: 4, longitude: 5))  // hole's edge belongs to the polygon
        #expect(try !locator.covers(latitude: 5, longitude: 5))  // in the hole
        #expect(try !locator.covers(latitude: 5, longitude: 10.000001))
        #expect(try !locator.covers(latitude: -1, longitude: -1))
    }

    /// The locator agrees with an obvious even-odd crossing test (away from edges) over random
    /// star-shaped polygons.
    @Test("locator equals crossing-number point-in-polygon on random polygons")
    func locatorMatchesCrossingNumber() throws {
        let context = try GEOSContext()
        for seed in testSeeds(10) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<20 {
                let n = rng.int(5...40)
                var flat: [Double] = []
                for k in 0..<n {
                    let angle = 2 * Double.pi * Double(k) / Double(n)
                    let r = rng.double(0.4...1)
                    flat += [r * _cos(angle), r * _sin(angle)]
                }
                flat += [flat[0], flat[1]]
                let shape = MultiPolygon(polygons: [Polygon(exterior: Ring(positions: flat))])
                let locator = try PolygonLocator(context: context, shape: shape)
                for _ in 0..<200 {
                    let x = rng.double(-1.1...1.1), y = rng.double(-1.1...1.1)
                    var inside = false
                    for i in 1...n {
                        let xi = flat[2 * i], yi = flat[2 * i + 1], xj = flat[2 * i - 2], yj = flat[2 * i - 1]
                        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi { inside.toggle() }
                    }
                    #expect(try locator.covers(latitude: y, longitude: x) == inside, "seed \(seed): (\(x), \(y))")
                }
            }
        }
    }

    @Test("validity reasons name the problem and MakeValid repairs a bow-tie")
    func validityAndRepair() throws {
        let context = try GEOSContext()
        #expect(try context.validityProblem(of: squareWithHole) == nil)
        let bowTie = MultiPolygon(polygons: [Polygon(exterior: Ring(positions: [0, 0, 2, 2, 2, 0, 0, 2, 0, 0]))])
        let reason = try context.validityProblem(of: bowTie)
        #expect(reason?.contains("Self-intersection") == true, "\(reason ?? "nil")")
        let fixed = try context.makeValid(bowTie)
        #expect(fixed.polygons.count == 2)
        #expect(try context.validityProblem(of: fixed) == nil)
    }

    @Test("sinCos gives the C library's sin and cos, to the bit")
    func sinCos() {
        var rng = SplitMix64(seed: 21)
        for k in 0..<200_000 {
            let x = k % 2 == 0 ? rng.double(-0.02...0.02) : rng.double(-400...400)
            let (s, c) = CMath.sinCos(x)
            #expect(s == sin(x) && c == cos(x), "at \(x)")
        }
    }

    @Test("minimum bounding circle of a square")
    func minimumCircle() throws {
        let context = try GEOSContext()
        let c = try context.minimumBoundingCircle(of: [(0, 0), (2, 0), (2, 2), (0, 2)])
        #expect(abs(c.x - 1) < 1e-9 && abs(c.y - 1) < 1e-9)
        #expect(abs(c.radius - 2.0.squareRoot()) < 1e-9)
    }

    @Test("a locator on an unusable geometry is a typed error, not a crash")
    func errorsAreTyped() throws {
        let context = try GEOSContext()
        // A ring GEOS refuses (not closed) surfaces as a GEOSError carrying GEOS's message.
        let bad = MultiPolygon(polygons: [Polygon(exterior: Ring(positions: [0, 0, 1, 0, 1, 1, 0, 1]))])
        #expect(throws: GEOSError.self) { try PolygonLocator(context: context, shape: bad) }
        do {
            _ = try PolygonLocator(context: context, shape: bad)
        } catch {
            #expect(!error.message.isEmpty)
        }
    }
}

func _cos(_ x: Double) -> Double { Foundation.cos(x) }
func _sin(_ x: Double) -> Double { Foundation.sin(x) }
