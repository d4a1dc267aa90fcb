import GeofenceEngine
import GeofenceTestSupport
import Testing
@_spi(Engine) import GeofenceGeometry

func circle(_ id: String, _ lat: Double, _ lon: Double, _ r: Double, level: Int? = nil, index: Int = 0) -> Fence {
    Fence(geofenceID: id, shape: .circle(center: Coordinate(latitude: lat, longitude: lon), radius: r), level: level, featureIndex: index)
}

func polygon(_ id: String, _ rings: [[Double]], level: Int? = nil, index: Int = 0) -> Fence {
    let polygon = Polygon(exterior: Ring(positions: rings[0]), holes: rings.dropFirst().map { Ring(positions: $0) })
    return Fence(geofenceID: id, shape: .polygon(MultiPolygon(polygons: [polygon])), level: level, featureIndex: index)
}

@Suite("Fence sets")
struct FenceSetTests {
    @Test("duplicate ids name both features; invalid polygons carry GEOS's reason")
    func validation() {
        let bowTie = polygon("bow", [[0, 0, 2, 2, 2, 0, 0, 2, 0, 0]], index: 2)
        do {
            _ = try FenceSet([circle("a", 0, 0, 10, index: 0), circle("a", 1, 1, 10, index: 1), bowTie])
            Issue.record("accepted bad fences")
        } catch let error as FenceValidationError {
            #expect(error.problems.map(\.featureIndex) == [1, 2])
            #expect(error.problems[0].description == #"feature 1 (a): duplicate id "a" (also used by feature 0)"#)
            #expect(error.problems[1].reason.contains("Self-intersection"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("a fence built in code with a dwell time that is not seconds >= 0 is refused as GeoJSON's would be")
    func dwellSecondsChecked() throws {
        for bad in [-1.0, -.leastNonzeroMagnitude, .nan, .infinity] {
            var fence = circle("a", 0, 0, 10, index: 4)
            fence.dwellSeconds = bad
            #expect {
                _ = try FenceSet([circle("b", 1, 1, 10), fence])
            } throws: { error in
                let problems = (error as? FenceValidationError)?.problems ?? []
                return problems.count == 1 && problems[0].featureIndex == 4 && problems[0].reason.hasPrefix("dwellSeconds must be a number of seconds >= 0")
            }
        }
        for good in [0.0, 90.0, nil] {
            var fence = circle("a", 0, 0, 10)
            fence.dwellSeconds = good
            #expect(try FenceSet([fence]).count == 1)
        }
    }

    @Test("repair fixes invalid polygons with MakeValid and counts them")
    func repair() throws {
        let set = try FenceSet([polygon("bow", [[0, 0, 2, 2, 2, 0, 0, 2, 0, 0]])], repair: true)
        #expect(set.repairedCount == 1)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        #expect(try evaluator.containingIDs(latitude: 1.5, longitude: 0.5, level: nil) == ["bow"])
        #expect(try evaluator.containingIDs(latitude: 0.5, longitude: 1, level: nil) == [])
    }

    @Test("polygon: edges and vertices inside, holes outside")
    func polygonBoundary() throws {
        let set = try FenceSet([polygon("sq", [[0, 0, 1, 0, 1, 1, 0, 1, 0, 0], [0.4, 0.4, 0.4, 0.6, 0.6, 0.6, 0.6, 0.4, 0.4, 0.4]])])
        let e = try ContainmentEvaluator(fenceSet: set)
        #expect(try e.containingIDs(latitude: 0, longitude: 0.5, level: nil) == ["sq"])
        #expect(try e.containingIDs(latitude: 1, longitude: 1, level: nil) == ["sq"])
        #expect(try e.containingIDs(latitude: 0.5, longitude: 0.5, level: nil) == [])
        #expect(try e.containingIDs(latitude: 0.4, longitude: 0.5, level: nil) == ["sq"])
    }

    @Test("a polygon split at the antimeridian contains points on both sides")
    func antimeridianPolygon() throws {
        let east = Polygon(exterior: Ring(positions: [179.9, -1, 180, -1, 180, 1, 179.9, 1, 179.9, -1]))
        let west = Polygon(exterior: Ring(positions: [-180, -1, -179.9, -1, -179.9, 1, -180, 1, -180, -1]))
        let fence = Fence(geofenceID: "dateline", shape: .polygon(MultiPolygon(polygons: [east, west])))
        let set = try FenceSet([fence])
        let e = try ContainmentEvaluator(fenceSet: set)
        #expect(try e.containingIDs(latitude: 0, longitude: 179.95, level: nil) == ["dateline"])
        #expect(try e.containingIDs(latitude: 0, longitude: -179.95, level: nil) == ["dateline"])
        #expect(try e.containingIDs(latitude: 0, longitude: 0, level: nil) == [])
        // Its enclosing circle sits on the antimeridian, not at longitude 0.
        let mec = try #require(set.fences[0].enclosingCircle)
        #expect(abs(abs(mec.center.longitude) - 180) < 0.01)
        #expect(mec.radius > 111_000 && mec.radius < 113_000)  // half the 0.2° × 2° diagonal
    }

    @Test("circles across ±180° and over a pole")
    func seamCircles() throws {
        let set = try FenceSet([circle("date", 0, 179.9995, 200), circle("pole", 89.99, 45, 5_000)])
        let e = try ContainmentEvaluator(fenceSet: set)
        #expect(try e.containingIDs(latitude: 0, longitude: -179.9995, level: nil) == ["date"])
        #expect(try e.containingIDs(latitude: 89.995, longitude: -135, level: nil) == ["pole"])
        #expect(try e.containingIDs(latitude: 90, longitude: 0, level: nil) == ["pole"])
        #expect(try e.containingIDs(latitude: 89.9, longitude: -135, level: nil) == [])
    }

    @Test("level rule and the level/global switches")
    func levels() throws {
        let set = try FenceSet([circle("global", 0, 0, 100), circle("floor2", 0, 0, 100, level: 2)])
        let e = try ContainmentEvaluator(fenceSet: set)
        #expect(try e.containingIDs(latitude: 0, longitude: 0, level: nil) == ["global"])
        #expect(try e.containingIDs(latitude: 0, longitude: 0, level: 2) == ["floor2", "global"])
        #expect(try e.containingIDs(latitude: 0, longitude: 0, level: 3) == ["global"])
        let noGlobal = ContainmentOptions(levelFences: true, globalFences: false)
        #expect(try e.containingIDs(latitude: 0, longitude: 0, level: 2, options: noGlobal) == ["floor2"])
        let noLevel = ContainmentOptions(levelFences: false, globalFences: true)
        #expect(try e.containingIDs(latitude: 0, longitude: 0, level: 2, options: noLevel) == ["global"])
    }

    @Test("the enclosing circle holds every vertex and is no bigger than a naive one")
    func enclosingCircles() throws {
        for seed in testSeeds(5) {
            var rng = SplitMix64(seed: seed)
            let fences = (0..<30).map { i in randomPolygon(&rng, id: "p\(i)", near: Coordinate(latitude: rng.double(-70...70), longitude: rng.double(-180...180))) }
            let set = try FenceSet(fences)
            for fence in set.fences {
                guard case .polygon(let shape) = fence.shape, let mec = fence.enclosingCircle else { continue }
                var naive = 0.0
                let centroid = shape.polygons[0].exterior[0]
                for ring in shape.allRings {
                    for i in 0..<ring.count {
                        #expect(Sphere.distance(mec.center, ring[i]) <= mec.radius, "seed \(seed) \(fence.geofenceID)")
                        naive = max(naive, Sphere.distance(centroid, ring[i]))
                    }
                }
                #expect(mec.radius <= naive + 0.01, "seed \(seed) \(fence.geofenceID)")
            }
        }
    }

    /// The containment answer equals an obvious twin that tests every fence exactly, with no
    /// box pre-check, over random worlds with seams, poles, holes and levels.
    @Test("containment equals exact tests of every fence", arguments: [0, 1, 16, 17, 300])
    func scanEqualsBruteForce(size: Int) throws {
        for seed in testSeeds(4) {
            var rng = SplitMix64(seed: seed &+ UInt64(size))
            let fences = randomWorld(&rng, count: size)
            let set = try FenceSet(fences)
            let e = try ContainmentEvaluator(fenceSet: set)
            for _ in 0..<400 {
                let (lat, lon, level) = randomFix(&rng, near: fences)
                var expected: [String] = []
                for fence in set.fences {
                    let levelOK = fence.level == nil || fence.level == level
                    if levelOK && exactlyContains(fence, latitude: lat, longitude: lon) { expected.append(fence.geofenceID) }
                }
                let got = try e.containingIDs(latitude: lat, longitude: lon, level: level)
                #expect(got == expected.sorted { fenceIDPrecedes($0, $1) }, "seed \(seed) size \(size): (\(lat), \(lon)) level \(level.map(String.init) ?? "nil")")
            }
        }
    }
}
