import GeofenceEngine
@_spi(Engine) import GeofenceGeometry

/// Random fence worlds for the randomized tests: where the fences are, how big, and which
/// awkward cases (antimeridian, pole, duplicates, levels) they include.
struct RandomWorld {
    /// Centre of the area and its radius in metres.
    var center: Coordinate
    var spread: Double
    /// Circle radii and polygon sizes, metres (log-uniform).
    var minimumSize: Double = 20
    var maximumSize: Double = 600
    /// Share of polygons among the fences.
    var polygonShare: Double = 0.5
    /// Share of fences that copy an earlier fence's shape under a new id (equal boxes, ties).
    var duplicateShare: Double = 0.05
    /// Share of fences with a level (0…2).
    var levelShare: Double = 0.2

    static let city = RandomWorld(center: Coordinate(latitude: 40.75, longitude: -73.98), spread: 3_000)
    /// Straddles ±180°: circles are split in two boxes, polygons written as split MultiPolygons.
    static let antimeridian = RandomWorld(center: Coordinate(latitude: -16.5, longitude: 179.99), spread: 2_500)
    /// Around the north pole: caps over the pole span every longitude.
    static let pole = RandomWorld(
        center: Coordinate(latitude: 89.985, longitude: 30), spread: 1_500, minimumSize: 200, maximumSize: 2_500,
        polygonShare: 0)

    /// A point within `spread` of the centre.
    func point(_ rng: inout SeededGenerator) -> Coordinate {
        Sphere.destination(
            from: center, distance: spread * rng.double(0...1).squareRoot(), bearing: rng.double(0...(2 * .pi)))
    }

    /// `count` fences with unique ids (id order unrelated to generation order).
    func fences(count: Int, _ rng: inout SeededGenerator) -> [Fence] {
        var out: [Fence] = []
        for i in 0..<count {
            let id = "f\(rng.int(0...999_999))-\(i)"
            let level: Int? = rng.chance(levelShare) ? rng.int(0...2) : nil
            let library = rng.chance(0.5) ? "lib\(rng.int(0...2))" : nil
            if !out.isEmpty && rng.chance(duplicateShare) {
                let copy = out[rng.int(0...(out.count - 1))]
                out.append(Fence(geofenceID: id, shape: copy.shape, level: level, library: library, featureIndex: i))
                continue
            }
            let c = point(&rng)
            let size = rng.logUniform(minimumSize, maximumSize)
            let shape: Fence.Shape =
                rng.chance(polygonShare) ? polygon(around: c, size: size, &rng) : .circle(center: c, radius: size)
            out.append(Fence(geofenceID: id, shape: shape, level: level, library: library, featureIndex: i))
        }
        return out
    }

    /// A star-shaped polygon (vertices at sorted angles, so always simple), sometimes with a
    /// hole; split at ±180° when it crosses it.
    func polygon(around c: Coordinate, size: Double, _ rng: inout SeededGenerator) -> Fence.Shape {
        // Vertices at sorted bearings with every gap under 180°: the centre is then in the
        // kernel, so the polygon is star-shaped and simple.
        let n = rng.int(3...14)
        var angles: [Double] = []
        var gaps: [Double] = [2 * .pi]
        while gaps.max()! >= .pi * 0.9 {
            angles = (0..<n).map { _ in rng.double(0...(2 * .pi)) }.sorted()
            gaps = zip(angles, angles.dropFirst() + [angles[0] + 2 * .pi]).map { $1 - $0 }
        }
        var ring = angles.map { Sphere.destination(from: c, distance: size * rng.double(0.45...1), bearing: $0) }
        // Unwrap longitudes around the centre so a ring across ±180° stays one shape.
        ring = ring.map { p in
            var lon = p.longitude
            if lon - c.longitude > 180 { lon -= 360 } else if lon - c.longitude < -180 { lon += 360 }
            return Coordinate(latitude: p.latitude, longitude: lon)
        }
        var holes: [[Coordinate]] = []
        // A hole only when the shell stays well clear of it: every angular gap under 90°
        // keeps each edge at least 0.45 · cos 45° ≈ 0.32 · size from the centre.
        if gaps.max()! < .pi / 2 && rng.chance(0.5) {
            let r = size * 0.25
            holes.append((0..<6).map { k in
                let p = Sphere.destination(from: c, distance: r, bearing: -Double(k) * .pi / 3)
                var lon = p.longitude
                if lon - c.longitude > 180 { lon -= 360 } else if lon - c.longitude < -180 { lon += 360 }
                return Coordinate(latitude: p.latitude, longitude: lon)
            })
        }
        let lons = ring.map(\.longitude)
        if lons.max()! > 180 || lons.min()! < -180 {
            // Crossing the antimeridian: an RFC 7946 split, as two boxes clipped at ±180
            // (holes dropped: clipping them too is not what these tests are about).
            let lats = ring.map(\.latitude)
            let (south, north) = (lats.min()!, lats.max()!)
            let west = lons.min()!, east = lons.max()!
            let eastPart = west < -180 ? (west + 360, 180.0) : (west, 180.0)
            let westPart = east > 180 ? (-180.0, east - 360) : (-180.0, east)
            return .polygon(MultiPolygon(polygons: [
                rectangle(south: south, north: north, west: eastPart.0, east: eastPart.1),
                rectangle(south: south, north: north, west: westPart.0, east: westPart.1),
            ]))
        }
        return .polygon(MultiPolygon(polygons: [
            Polygon(exterior: Ring(closing: ring), holes: holes.map { Ring(closing: $0) })
        ]))
    }

    func rectangle(south: Double, north: Double, west: Double, east: Double) -> Polygon {
        Polygon(exterior: Ring(closing: [
            Coordinate(latitude: south, longitude: west), Coordinate(latitude: south, longitude: east),
            Coordinate(latitude: north, longitude: east), Coordinate(latitude: north, longitude: west),
        ]))
    }

    /// Query points: random ones, plus fence centres and polygon vertices (on the boundary,
    /// where covers must answer true) so edge cases are hit on purpose.
    func queryPoints(count: Int, fences: [Fence], _ rng: inout SeededGenerator) -> [Coordinate] {
        var points: [Coordinate] = []
        for _ in 0..<count {
            if fences.isEmpty || rng.chance(0.6) {
                points.append(point(&rng))
                continue
            }
            switch fences[rng.int(0...(fences.count - 1))].shape {
            case .circle(let center, let radius):
                let d = rng.chance(0.5) ? radius : radius * rng.double(0...1.5)
                points.append(Sphere.destination(from: center, distance: d, bearing: rng.double(0...(2 * .pi))))
            case .polygon(let shape):
                let ring = shape.polygons[0].exterior
                points.append(ring[rng.int(0...(ring.count - 1))])
            }
        }
        return points
    }
}

extension RandomWorld {
    /// The world packed three times tighter, a third of its fences on levels: 400 seeded fences
    /// and one circle over it all, so fixes have several pairs each (the batch tests' world).
    func denseFences(_ rng: inout SeededGenerator) -> (world: RandomWorld, fences: [Fence]) {
        var world = self
        world.spread = spread / 3
        world.levelShare = 0.3
        var fences = world.fences(count: 400, &rng)
        fences.append(Fence(geofenceID: "wide", shape: .circle(center: world.center, radius: world.spread * 4)))
        return (world, fences)
    }
}
