import GeofenceEngine
import RealModule
@_spi(Engine) import GeofenceGeometry

/// A seeded world generated in Swift, scalable to a million fences and a hundred million
/// fixes: the fences of ``IndexBenchWorld`` and 1,000 devices on correlated random walks
/// (about 10 m a step) in the same 50 km square, interleaved as a time-ordered export is.
enum SwiftWorld {
    static func world(fences: Int, fixes: Int, seed: UInt64 = 42) throws -> PeerWorld {
        var rng = IndexBenchRandom(seed: seed)
        let set = try FenceSet(IndexBenchWorld.fences(count: fences, &rng))
        return PeerWorld(fenceSet: set, fileIndexOfSlot: (0..<set.count).map { set.featureIndex(at: $0) }, fixes: walks(count: fixes, seed: seed &+ 1))
    }

    /// Interleaved latitude, longitude of `count` fixes.
    static func walks(count: Int, devices: Int = 1_000, seed: UInt64) -> [Double] {
        var rng = IndexBenchRandom(seed: seed)
        let half = IndexBenchWorld.halfSide
        var x = (0..<devices).map { _ in (rng.unit() * 2 - 1) * half }
        var y = (0..<devices).map { _ in (rng.unit() * 2 - 1) * half }
        var heading = (0..<devices).map { _ in rng.unit() * 2 * Double.pi }
        let metresPerDegreeLat = Sphere.radius * Double.pi / 180
        let metresPerDegreeLon = metresPerDegreeLat * Double.cos(IndexBenchWorld.center.latitude * Double.pi / 180)
        var out = [Double](repeating: 0, count: 2 * count)
        for i in 0..<count {
            let d = i % devices
            heading[d] += (rng.unit() - 0.5) * 0.6
            let step = 5 + rng.unit() * 10
            x[d] += step * Double.cos(heading[d])
            y[d] += step * Double.sin(heading[d])
            // Reflect at the edges of the square.
            if abs(x[d]) > half { x[d] = x[d].sign == .minus ? -2 * half - x[d] : 2 * half - x[d]; heading[d] = Double.pi - heading[d] }
            if abs(y[d]) > half { y[d] = y[d].sign == .minus ? -2 * half - y[d] : 2 * half - y[d]; heading[d] = -heading[d] }
            out[2 * i] = IndexBenchWorld.center.latitude + y[d] / metresPerDegreeLat
            out[2 * i + 1] = IndexBenchWorld.center.longitude + x[d] / metresPerDegreeLon
        }
        return out
    }
}

extension PeerWorld {
    /// The same fences with only the first `count` fixes.
    func prefix(_ count: Int) -> PeerWorld {
        PeerWorld(fenceSet: fenceSet, fileIndexOfSlot: fileIndexOfSlot, fixes: Array(fixes.prefix(2 * count)))
    }
}
