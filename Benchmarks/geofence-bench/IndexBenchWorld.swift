import GeofenceEngine
import RealModule
@_spi(Engine) import GeofenceGeometry

/// SplitMix64, so every run of the benchmark builds the same fences and queries.
struct IndexBenchRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The SplitMix64 finaliser (also the pair checksum the peers use).
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}

/// The synthetic world of the index benchmark (the same kind of world as Benchmarks/peers/gen_world.py's).
enum IndexBenchWorld {
    static let center = Coordinate(latitude: 40.75, longitude: -73.98)
    /// Half the side of the square world, metres.
    static let halfSide = 25_000.0

    /// A uniform point of the square world.
    static func point(_ rng: inout IndexBenchRandom) -> Coordinate {
        let north = (rng.unit() * 2 - 1) * halfSide, east = (rng.unit() * 2 - 1) * halfSide
        let dLat = north / Sphere.radius * Sphere.radiansToDegrees
        let dLon = east / (Sphere.radius * cosDegrees(center.latitude)) * Sphere.radiansToDegrees
        return Coordinate(latitude: center.latitude + dLat, longitude: center.longitude + dLon)
    }

    /// `count` fences: even indices circles, odd ones star-shaped polygons (or circles too).
    static func fences(count: Int, circlesOnly: Bool = false, _ rng: inout IndexBenchRandom) -> [Fence] {
        var out: [Fence] = []
        out.reserveCapacity(count)
        for i in 0..<count {
            let c = point(&rng)
            let size = 50 * Double.pow(10, rng.unit())  // log-uniform 50…500 m
            let id = "f\(i)"
            if i % 2 == 0 || circlesOnly {
                out.append(Fence(geofenceID: id, shape: .circle(center: c, radius: size), featureIndex: i))
            } else {
                out.append(Fence(geofenceID: id, shape: .polygon(star(around: c, size: size, &rng)), featureIndex: i))
            }
        }
        return out
    }

    /// 5–40 vertices at jittered, evenly spread bearings (every gap under 180°, so the centre
    /// is in the kernel and the ring is simple), half of them convex-ish, half spiky; 20% get
    /// a hexagonal hole well inside.
    static func star(around c: Coordinate, size: Double, _ rng: inout IndexBenchRandom) -> MultiPolygon {
        let n = 5 + Int(rng.next() % 36)
        let spiky = rng.next() % 2 == 0
        var ring: [Coordinate] = []
        for k in 0..<n {
            let bearing = (Double(k) + 0.8 * rng.unit()) / Double(n) * 2 * .pi
            let r = size * (spiky && k % 2 == 1 ? 0.5 + 0.1 * rng.unit() : 0.9 + 0.1 * rng.unit())
            ring.append(Sphere.destination(from: c, distance: r, bearing: bearing))
        }
        var holes: [Ring] = []
        if rng.unit() < 0.2 {
            holes.append(Ring(closing: (0..<6).map { k in
                Sphere.destination(from: c, distance: size * 0.2, bearing: -Double(k) * .pi / 3)
            }))
        }
        return MultiPolygon(polygons: [Polygon(exterior: Ring(closing: ring), holes: holes)])
    }

    static func cosDegrees(_ x: Double) -> Double { Double.cos(x * Sphere.degreesToRadians) }
}
