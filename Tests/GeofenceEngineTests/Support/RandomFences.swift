import GeofenceEngine
import GeofenceTestSupport
@_spi(Engine) import GeofenceGeometry

/// A random star-shaped polygon (sometimes with a hole) of up to `size` metres around `center`.
func randomPolygon(_ rng: inout SplitMix64, id: String, near center: Coordinate, size: Double = 300, level: Int? = nil) -> Fence {
    let n = rng.int(4...24)
    var outer: [Coordinate] = []
    for k in 0..<n {
        let bearing = 2 * Double.pi * (Double(k) + rng.double(0...0.8)) / Double(n)
        outer.append(Sphere.destination(from: center, distance: size * rng.double(0.5...1), bearing: bearing))
    }
    var holes: [Ring] = []
    if n >= 8 && rng.chance(0.25) {  // with 8+ vertices every edge stays > 0.38 size from the centre
        let hole = (0..<6).map { k in Sphere.destination(from: center, distance: size * 0.2, bearing: -2 * Double.pi * Double(k) / 6) }
        holes.append(Ring(closing: hole))
    }
    let shape = MultiPolygon(polygons: [Polygon(exterior: Ring(closing: outer), holes: holes)])
    return Fence(geofenceID: id, shape: .polygon(shape), level: level)
}

/// A world of circles and polygons: mostly in a small box, some on the antimeridian and near
/// the poles, a few duplicated shapes and zero-size-ish circles, some with levels.
func randomWorld(_ rng: inout SplitMix64, count: Int) -> [Fence] {
    var fences: [Fence] = []
    for i in 0..<count {
        let place = rng.int(0...9)
        let center: Coordinate
        switch place {
        case 0: center = Coordinate(latitude: rng.double(-5...5), longitude: rng.chance(0.5) ? rng.double(179.99...180) : rng.double(-180 ... -179.99))
        case 1: center = Coordinate(latitude: rng.double(89.9...90) * (rng.chance(0.5) ? 1 : -1), longitude: rng.double(-180...180))
        default: center = Coordinate(latitude: rng.double(40...40.05), longitude: rng.double(-74...(-73.95)))
        }
        let level: Int? = rng.chance(0.2) ? rng.int(0...2) : nil
        let id = "f\(rng.int(0...1_000_000))-\(i)"
        if i > 0 && rng.chance(0.05), case let previous = fences[rng.int(0...(fences.count - 1))] {
            fences.append(Fence(geofenceID: id, shape: previous.shape, level: previous.level))  // duplicate shape
            continue
        }
        if place == 1 || rng.chance(0.5) {
            let r = rng.chance(0.05) ? 0.01 : rng.double(5...2_000)
            fences.append(Fence(geofenceID: id, shape: .circle(center: center, radius: r), level: level))
        } else {
            fences.append(randomPolygon(&rng, id: id, near: Coordinate(latitude: min(center.latitude, 89), longitude: max(-179.9, min(179.9, center.longitude))), size: rng.double(20...1_500), level: level))
        }
    }
    return fences
}

/// A fix near a random fence (or anywhere), with a random level.
func randomFix(_ rng: inout SplitMix64, near fences: [Fence]) -> (Double, Double, Int?) {
    let level: Int? = rng.chance(0.3) ? nil : rng.int(0...2)
    if fences.isEmpty || rng.chance(0.1) {
        return (rng.double(-90...90), rng.double(-180...180), level)
    }
    let fence = fences[rng.int(0...(fences.count - 1))]
    let anchor: Coordinate
    switch fence.shape {
    case .circle(let c, let r):
        anchor = Sphere.destination(from: c, distance: r * rng.double(0...1.3), bearing: rng.double(0...(2 * .pi)))
    case .polygon(let shape):
        let ring = shape.polygons[0].exterior
        let v = ring[rng.int(0...(ring.count - 1))]
        anchor = Sphere.destination(from: v, distance: rng.double(0...500), bearing: rng.double(0...(2 * .pi)))
    }
    return (anchor.latitude, anchor.longitude, level)
}

/// Exact containment with no index, no boxes: haversine for circles, even-odd crossing over
/// every ring (boundary points aside, the same answer as GEOS covers).
func exactlyContains(_ fence: Fence, latitude: Double, longitude: Double) -> Bool {
    switch fence.shape {
    case .circle(let c, let r):
        return Sphere.haversineTerm(Coordinate(latitude: latitude, longitude: longitude), c) <= Sphere.capThreshold(radius: r)
    case .polygon(let shape):
        var inside = false
        for ring in shape.allRings {
            let p = ring.positions
            for i in 1..<ring.count {
                let xi = p[2 * i], yi = p[2 * i + 1], xj = p[2 * i - 2], yj = p[2 * i - 1]
                if (yi > latitude) != (yj > latitude) && longitude < (xj - xi) * (latitude - yi) / (yj - yi) + xi { inside.toggle() }
            }
        }
        return inside
    }
}
