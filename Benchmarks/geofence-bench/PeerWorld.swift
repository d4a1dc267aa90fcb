import GeofenceEngine

/// The synthetic world of `Benchmarks/peers/gen_world.py`: fences as GeoJSON, fixes as
/// little-endian f64 pairs (latitude, longitude) in time order.
struct PeerWorld {
    let fenceSet: FenceSet
    /// Slot → 0-based index of the feature in the file (the checksum's fence index).
    let fileIndexOfSlot: [Int]
    /// Interleaved latitude, longitude.
    let fixes: [Double]

    var fixCount: Int { fixes.count / 2 }

    static func load(fences: String, fixes: String, limit: Int? = nil) throws -> PeerWorld {
        let set = try FenceSet.load(path: fences)
        return PeerWorld(fenceSet: set, fileIndexOfSlot: (0..<set.count).map { set.featureIndex(at: $0) }, fixes: try readFixes(fixes, limit: limit))
    }

    /// Reads `N × (f64 lat, f64 lon)` little-endian.
    static func readFixes(_ path: String, limit: Int? = nil) throws -> [Double] {
        let bytes = try FileBytes.read(path)
        guard bytes.count % 16 == 0 else {
            throw BenchError("\(path): \(bytes.count) bytes is not a whole number of (lat, lon) f64 pairs")
        }
        var n = bytes.count / 8
        if let limit { n = min(n, limit * 2) }
        var values = [Double](repeating: 0, count: n)
        values.withUnsafeMutableBytes { dst in
            bytes.withUnsafeBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<(n * 8)])) }
        }
        // Little-endian on every platform this runs on (x86-64, arm64).
        return values
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
