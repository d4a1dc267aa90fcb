import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// The hot paths' shortcuts against their slow twins: the circle test without `cos` or `sin`
/// (and its first step, the plain squares) against the two-`sin` term, and the unchecked
/// conversion against `Int(_:)`.
@Suite("Circle test and coverage shortcuts")
struct CircleTestTwinTests {
    /// The same answer as `Sphere.haversineTerm(…) <= threshold` for points anywhere, near
    /// the circle's edge (the threshold the point's own term, give or take an ulp), and on
    /// it; centres from the equator to the poles.
    @Test("Sphere.capHolds equals the sin computation, at the edge too")
    func holdsMatchesSin() {
        let toRadians = Double.pi / 180
        for seed in testSeeds(20) {
            var rng = SplitMix64(seed: seed)
            for _ in 0..<2_000 {
                let centre = Coordinate(latitude: rng.double(-89.9...89.9), longitude: rng.double(-180...180))
                let radius = rng.double(0.5...(rng.chance(0.1) ? 2_000_000 : 2_000))
                let point = Sphere.destination(from: centre, distance: rng.double(0...(2 * radius)), bearing: rng.double(0...(2 * .pi)))
                let (lat1, lon1) = (point.latitude * toRadians, point.longitude * toRadians)
                let (lat2, lon2) = (centre.latitude * toRadians, centre.longitude * toRadians)
                let term = Sphere.haversineTerm(
                    latitude1: lat1, longitude1: lon1, cosLatitude1: cos(lat1), latitude2: lat2, longitude2: lon2, cosLatitude2: cos(lat2))
                let thresholds = [Sphere.capThreshold(radius: radius), term, term.nextUp, term.nextDown, term.nextUp.nextUp, term.nextDown.nextDown]
                for t in thresholds {
                    let got = Sphere.capHolds(
                        t, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos(lat2), sinLatitude2: sin(lat2))
                    #expect(got == (term <= t), "seed \(seed): point \(point) centre \(centre) threshold \(t) term \(term)")
                }
            }
        }
    }

    /// A circle anywhere (on a pole one time in twenty, its centre beside the antimeridian one
    /// in five), radius 10 cm to 50 km, and its threshold.
    static func circleAnywhere(_ rng: inout SeededGenerator) -> (centre: Coordinate, radius: Double, threshold: Double) {
        let latitude = rng.chance(0.05) ? (rng.chance(0.5) ? 90.0 : -90.0) : rng.double(-89.99...89.99)
        let longitude = rng.chance(0.2) ? 180 - rng.double(0...0.01) : rng.double(-180...180)
        let radius = rng.logUniform(0.1, 50_000)
        return (Coordinate(latitude: latitude, longitude: longitude), radius, Sphere.capThreshold(radius: radius))
    }

    /// A point at `share` of the radius from the centre: anywhere up to three radii, or within
    /// a millionth or a thousandth of the edge.
    static func pointAround(_ centre: Coordinate, radius: Double, _ rng: inout SeededGenerator) -> (share: Double, point: Coordinate) {
        let share = [rng.double(0...3), 1 + rng.double(-1e-6...1e-6), 1 + rng.double(-1e-3...1e-3)][rng.int(0...2)]
        return (share, Sphere.destination(from: centre, distance: radius * share, bearing: rng.double(0...(2 * .pi))))
    }

    /// The plain squares' answer (`Sphere.capSquares`, which the cap test starts from) is the
    /// `sin` computation's wherever it gives one: centres anywhere, on the poles and beside
    /// the antimeridian (points across it), radii from 10 cm to 50 km, points on, near and far
    /// from the edge; and it gives one for nearly every point not near the edge.
    @Test("the plain squares agree with the sin computation and decide most points", arguments: testSeeds(3, base: 101))
    func squaresMatchSin(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let toRadians = Double.pi / 180
        var clear = 0, decided = 0
        for _ in 0..<4_000 {
            let (centre, radius, threshold) = Self.circleAnywhere(&rng)
            let (lat2, lon2) = (centre.latitude * toRadians, centre.longitude * toRadians)
            for _ in 0..<6 {
                let (share, point) = Self.pointAround(centre, radius: radius, &rng)
                let (lat1, lon1) = (point.latitude * toRadians, point.longitude * toRadians)
                let holds = Sphere.haversineTerm(
                    latitude1: lat1, longitude1: lon1, cosLatitude1: cos(lat1), latitude2: lat2, longitude2: lon2,
                    cosLatitude2: cos(lat2)) <= threshold
                let squares = Sphere.capSquares(
                    threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos(lat2))
                #expect(squares == 2 || (squares == 1) == holds, "seed \(seed): centre \(centre) radius \(radius) point \(point): \(squares), exact \(holds)")
                // Away from the edge (1 % of the radius), off the poles, within 0.01 rad.
                if abs(share - 1) > 0.01, abs(centre.latitude) < 80, radius < 20_000, abs(centre.longitude - point.longitude) < 0.5 {
                    clear += 1
                    if squares != 2 { decided += 1 }
                }
            }
        }
        #expect(clear > 1_000 && decided * 100 >= clear * 99, "seed \(seed): \(decided) of \(clear) points clear of the edge decided")
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(Sphere.capSquares(1e-9, latitude1: bad, longitude1: 0.5, latitude2: 0.5, longitude2: 0.5, cosLatitude2: cos(0.5)) == 2)
            #expect(Sphere.capSquares(1e-9, latitude1: 0.5, longitude1: bad, latitude2: 0.5, longitude2: 0.5, cosLatitude2: cos(0.5)) == 2)
        }
    }

    /// The two-lane squares (the batch sweep's circle step, two fixes a step) answer each lane
    /// as the one-point squares do: centres anywhere, on the poles and beside the antimeridian,
    /// radii from 10 cm to 50 km, points on, near and far from the edge, paired at random,
    /// and lanes that are not numbers.
    @Test("the two-lane squares answer each lane as the one-point squares", arguments: testSeeds(3, base: 131))
    func twoLaneSquares(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let toRadians = Double.pi / 180
        var answers = [0, 0, 0]
        for _ in 0..<3_000 {
            let (centre, radius, threshold) = Self.circleAnywhere(&rng)
            let (lat2, lon2) = (centre.latitude * toRadians, centre.longitude * toRadians)
            let cos2 = cos(lat2)
            var lat1 = SIMD2<Double>(), lon1 = SIMD2<Double>()
            for lane in 0..<2 {
                let point = Self.pointAround(centre, radius: radius, &rng).point
                lat1[lane] = point.latitude * toRadians
                lon1[lane] = point.longitude * toRadians
                if rng.chance(0.03) { lat1[lane] = [Double.nan, .infinity, -.infinity][rng.int(0...2)] }
                if rng.chance(0.03) { lon1[lane] = [Double.nan, .infinity, -.infinity][rng.int(0...2)] }
            }
            let both = Sphere.capSquares(threshold, latitudes: lat1, longitudes: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2)
            for lane in 0..<2 {
                let one = Sphere.capSquares(
                    threshold, latitude1: lat1[lane], longitude1: lon1[lane], latitude2: lat2, longitude2: lon2, cosLatitude2: cos2)
                #expect(Int(both[lane]) == one, "seed \(seed): centre \(centre) radius \(radius) lane \(lane) (\(lat1[lane]), \(lon1[lane])): \(both[lane]) against \(one)")
                if (0...2).contains(one) { answers[one] += 1 }
                // What a lane left undecided goes on without the squares, to the one-point answer.
                if one == 2 {
                    let past = Sphere.capCountPastSquares(
                        threshold, latitude1: lat1[lane], longitude1: lon1[lane], latitude2: lat2, longitude2: lon2,
                        cosLatitude2: cos2, sinLatitude2: sin(lat2))
                    let whole = Sphere.capCount(
                        threshold, latitude1: lat1[lane], longitude1: lon1[lane], latitude2: lat2, longitude2: lon2,
                        cosLatitude2: cos2, sinLatitude2: sin(lat2))
                    #expect(past == whole, "seed \(seed): centre \(centre) radius \(radius) lane \(lane): past the squares \(past), whole test \(whole)")
                }
            }
        }
        // Outside, inside and undecided all met.
        #expect(answers.allSatisfy { $0 > 100 }, "seed \(seed): answers 0, 1, 2: \(answers)")
    }

    /// The squares' rounding allowance, where the truncation bound leaves next to none: points
    /// moved along one coordinate, the other the centre's give or take a few ulps (so `2|x|·y²`
    /// is at most about an ulp of the term, and `x⁴/3 + y⁴/3` far below one for radii of a few
    /// metres or less), placed by bisection on the last double where
    /// the `sin` computation says inside, and a few ulps either side; centres on and beside
    /// the poles (where cos φ₂ is 0 or tiny) and anywhere. The squares must never contradict
    /// it, nor the series, nor the whole cap test.
    @Test("the squares and the series keep their rounding allowance at the edge", arguments: testSeeds(3, base: 211))
    func estimatesAtTheEdge(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let halfPi = Double.pi / 2
        var checked = 0
        for _ in 0..<400 {
            let lat2 = [halfPi, -halfPi, halfPi - 1e-9, -halfPi + 1e-7, rng.double(-1.5...1.5)][rng.int(0...4)]
            let lon2 = rng.double(-3...3)
            let threshold = Sphere.capThreshold(radius: rng.logUniform(0.05, 5))
            let (cos2, sin2) = (cos(lat2), sin(lat2))
            let alongLatitude = rng.chance(0.5)
            let sign = rng.chance(0.5) ? 1.0 : -1.0
            // The other coordinate the centre's or a few ulps off it: `2|x|·y²` then about an ulp
            // of the term, where the roundings of cos φ₁ against cos φ₂ decide.
            let ulps = Double(rng.int(-3...3))
            let (otherLat, otherLon) = (lat2 + ulps * lat2.ulp, lon2 + ulps * lon2.ulp)
            func point(_ s: Double) -> (Double, Double) { alongLatitude ? (lat2 + sign * s, otherLon) : (otherLat, lon2 + sign * s) }
            func inside(_ s: Double) -> Bool {
                let (lat1, lon1) = point(s)
                return Sphere.haversineTerm(
                    latitude1: lat1, longitude1: lon1, cosLatitude1: cos(lat1), latitude2: lat2, longitude2: lon2, cosLatitude2: cos2)
                    <= threshold
            }
            // The offset where the answer turns, to the last double (inside at lo, outside at hi).
            var lo = 0.0, hi = 1e-3
            guard inside(lo), !inside(hi) else { continue }
            while lo.nextUp < hi {
                let mid = lo + (hi - lo) / 2
                if mid <= lo || mid >= hi { break }
                if inside(mid) { lo = mid } else { hi = mid }
            }
            var s = lo
            for _ in 0..<4 { s = s.nextDown }
            for _ in 0..<9 {
                let (lat1, lon1) = point(s)
                let holds = inside(s)
                let squares = Sphere.capSquares(threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2)
                let series = Sphere.capSeries(
                    threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2, sinLatitude2: sin2)
                let whole = Sphere.capHolds(
                    threshold, latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2, cosLatitude2: cos2, sinLatitude2: sin2)
                #expect(squares == 2 || (squares == 1) == holds, "seed \(seed): centre (\(lat2), \(lon2)) offset \(s) along \(alongLatitude ? "latitude" : "longitude"): squares \(squares), exact \(holds)")
                #expect(series == 2 || (series == 1) == holds, "seed \(seed): centre (\(lat2), \(lon2)) offset \(s): series \(series), exact \(holds)")
                #expect(whole == holds, "seed \(seed): centre (\(lat2), \(lon2)) offset \(s): capHolds \(whole), exact \(holds)")
                checked += 1
                s = s.nextUp
            }
        }
        #expect(checked > 2_000, "seed \(seed): only \(checked) points checked")
    }

    /// `PointCoverage.truncated` is `Int(v)` for every non-negative double below 2⁵²: random
    /// values of every size, integers and the doubles next to them, halves (where rounding to
    /// nearest would go the other way).
    @Test("the unchecked conversion equals Int(v)")
    func truncation() {
        var rng = SplitMix64(seed: 17)
        var values: [Double] = [0, 0.5, 1, 1.5, 2.5, 1e-300, 4_503_599_627_370_495, 2_251_799_813_685_247.5]
        for _ in 0..<200_000 {
            let v = rng.double(0...1) * pow(2, Double(rng.int(-20...51)))
            values += [v, v.rounded(.down), v.rounded(.down) + 0.5, v.rounded(.down).nextUp, v.rounded(.down).nextDown]
        }
        for v in values where v >= 0 && v < 4_503_599_627_370_496 {
            #expect(PointCoverage.truncated(v) == Int(v), "\(v)")
        }
    }

    /// The coverage never says no where a fence holds the point: every point of random
    /// worlds (fine cells of all sizes, points on fences' boxes' edges) that the scan finds in
    /// a fence is a "maybe".
    @Test("the coverage says maybe wherever a fence holds the point", arguments: sized(full: [1, 2, 3], quick: [1]) as [UInt64])
    func coverageIsConservative(seed: UInt64) throws {
        var world = SeededGenerator(seed: seed)
        var rng = SplitMix64(seed: seed)
        let fences = RandomWorld.city.fences(count: 300, &world)
        let set = try FenceSet(fences)
        let evaluator = try ContainmentEvaluator(fenceSet: set)
        var held = 0, rejected = 0
        for fence in fences {
            let box = fence.boundingBoxes[0]
            for _ in 0..<sized(full: 40, quick: 12) {
                var p = Coordinate(latitude: rng.double(box.minLatitude...box.maxLatitude), longitude: rng.double(box.minLongitude...box.maxLongitude))
                if rng.chance(0.2) { p = Coordinate(latitude: box.minLatitude, longitude: p.longitude) }
                if rng.chance(0.2) { p = Coordinate(latitude: p.latitude, longitude: box.maxLongitude) }
                let maybe = evaluator.coverage.mayHold(latitude: p.latitude, longitude: p.longitude)
                let slots = try evaluator.containingByScan(latitude: p.latitude, longitude: p.longitude, level: nil)
                if !slots.isEmpty { held += 1; #expect(maybe, "seed \(seed): \(p) is in \(slots) but the coverage says no") }
                if !maybe { rejected += 1 }
            }
        }
        #expect(held > 100, "seed \(seed): \(held) points held")
        // Far from every fence, the coverage answers alone.
        for _ in 0..<sized(full: 2_000, quick: 600) {
            let p = Coordinate(latitude: rng.double(-60...60), longitude: rng.double(-180...180))
            if try evaluator.containingByScan(latitude: p.latitude, longitude: p.longitude, level: nil).isEmpty { continue }
            #expect(evaluator.coverage.mayHold(latitude: p.latitude, longitude: p.longitude))
        }
        _ = rejected
    }
}
