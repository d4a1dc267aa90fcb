import Foundation
import GeofenceEngine
import GeofenceTestSupport
@_spi(Engine) import GeofenceGeometry

/// A random batch input: fences around a city, devices on random walks through them, written
/// as CSV in a chosen row and column order.
struct BatchFixture {
    struct Row {
        var device: String
        var timestamp: Int64
        var latitude: Double
        var longitude: Double
        var accuracy: Double?
        var level: Int?
    }

    var fences: [Fence]
    var rows: [Row]

    /// `devices` devices, about `fixesPerDevice` fixes each, every 5–60 s, through a world of
    /// `fenceCount` circles and polygons, some with levels.
    static func make(seed: UInt64, fenceCount: Int = 60, devices: Int = 12, fixesPerDevice: Int = 80) -> BatchFixture {
        var rng = SplitMix64(seed: seed)
        let center = Coordinate(latitude: 40.75, longitude: -73.98)
        var fences: [Fence] = []
        for i in 0..<fenceCount {
            let c = Sphere.destination(from: center, distance: rng.double(0...2_000), bearing: rng.double(0...(2 * .pi)))
            let level: Int? = rng.chance(0.15) ? rng.int(0...1) : nil
            var fence: Fence
            if rng.chance(0.5) {
                fence = Fence(geofenceID: "c\(i)", shape: .circle(center: c, radius: rng.double(30...300)), level: level)
            } else {
                fence = randomPolygon(&rng, id: "p\(i)", near: c, size: rng.double(50...300), level: level)
            }
            fence.dwellSeconds = rng.chance(0.2) ? Double(rng.int(0...120)) : nil
            fence.properties = JSONObject(members: [.init(key: "n", value: .integer(i))])
            fences.append(fence)
        }
        var rows: [Row] = []
        for d in 0..<devices {
            var p = Sphere.destination(from: center, distance: rng.double(0...1_500), bearing: rng.double(0...(2 * .pi)))
            var t: Int64 = 1_700_000_000_000 + Int64(rng.int(0...100_000))
            var heading = rng.double(0...(2 * .pi))
            let level: Int? = rng.chance(0.5) ? rng.int(0...1) : nil
            for _ in 0..<fixesPerDevice {
                // Sometimes stand still (for dwell and venueConfirmed), sometimes walk.
                if !rng.chance(0.3) {
                    heading += rng.double(-0.6...0.6)
                    p = Sphere.destination(from: p, distance: rng.double(5...80), bearing: heading)
                }
                let accuracy: Double? = rng.chance(0.7) ? Double(rng.int(3...60)) : nil  // Float-exact values
                rows.append(Row(device: "dev-\(d)", timestamp: t, latitude: p.latitude, longitude: p.longitude, accuracy: accuracy, level: level))
                // Equal timestamps now and then (a stable sort must keep file order).
                t += rng.chance(0.05) ? 0 : Int64(rng.int(5_000...60_000))
            }
        }
        return BatchFixture(fences: fences, rows: rows)
    }

    /// The rows shuffled (file order is then not time order).
    func shuffled(seed: UInt64) -> BatchFixture {
        var rng = SplitMix64(seed: seed)
        var copy = self
        copy.rows.shuffle(using: &rng)
        return copy
    }

    /// CSV text with the columns in `columns` order (names from device_id, timestamp, lat,
    /// lon, accuracy, level), each number written so it reads back exactly.
    func csv(columns: [String] = ["device_id", "timestamp", "lat", "lon", "accuracy", "level"], lineEnd: String = "\n") -> String {
        var text = columns.joined(separator: ",") + lineEnd
        for r in rows {
            let fields = columns.map { name -> String in
                switch name {
                case "device_id": r.device
                case "timestamp": String(r.timestamp)
                case "lat": "\(r.latitude)"
                case "lon": "\(r.longitude)"
                case "accuracy": r.accuracy.map { "\($0)" } ?? ""
                default: r.level.map(String.init) ?? ""
                }
            }
            text += fields.joined(separator: ",") + lineEnd
        }
        return text
    }

    /// A temporary file holding `text`.
    static func write(_ text: String, name: String = "fixes.csv") throws -> String {
        let dir = try TestFolders.make("geofence-batch")
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}

/// Runs the batch evaluator on a file and returns the NDJSON text and the summary.
func runBatch(_ set: FenceSet, path: String, options: BatchOptions) throws -> (String, BatchSummary) {
    let out = TestFolders.root.appendingPathComponent("events-\(UUID().uuidString).ndjson").path
    let summary: BatchSummary
    do {
        let sink = try OutputSink(path: out)
        summary = try BatchEvaluator(fenceSet: set, options: options).run(fixes: path, output: sink)
    }
    let text = try String(contentsOfFile: out, encoding: .utf8)
    try? FileManager.default.removeItem(atPath: out)
    return (text, summary)
}
