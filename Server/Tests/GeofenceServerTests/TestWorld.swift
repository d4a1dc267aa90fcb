import Foundation
import GeofenceEngine

/// The tests' world: four fences in New York (the consumer example's), devices walking
/// between them, and the events the library's own trackers give for the same fixes.
enum TestWorld {
    static let fencesGeoJSON = """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "properties": {"id": "home", "radius": 150},
           "geometry": {"type": "Point", "coordinates": [-73.9800, 40.7500]}},
          {"type": "Feature", "properties": {"id": "office", "radius": 100, "name": "Office"},
           "geometry": {"type": "Point", "coordinates": [-73.9700, 40.7600]}},
          {"type": "Feature", "properties": {"id": "park"},
           "geometry": {"type": "Polygon", "coordinates": [
             [[-73.9740, 40.7700], [-73.9680, 40.7700], [-73.9680, 40.7740], [-73.9740, 40.7740], [-73.9740, 40.7700]]]}},
          {"type": "Feature", "properties": {"id": "gym", "radius": 80},
           "geometry": {"type": "Point", "coordinates": [-73.9750, 40.7550]}}
        ]}
        """

    /// The same fences without `home`.
    static var fencesWithoutHome: String {
        let lines = fencesGeoJSON.components(separatedBy: "\n")
        let start = lines.firstIndex { $0.contains("\"home\"") }!
        return (lines[..<start] + lines[(start + 2)...]).joined(separator: "\n")
    }

    static let start: Int64 = 1_700_000_000_000

    /// Writes the fences into `folder`; returns the path.
    static func writeFences(in folder: TestFolder, _ text: String = fencesGeoJSON, name: String = "fences.geojson") throws -> String {
        let path = folder.path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// One device's fix.
    struct Item {
        var device: String
        var fix: Fix
    }

    /// `devices` devices, each `steps` fixes 20 s apart, walking home → gym → office → park
    /// and back with a few metres of seeded noise: entrances, dwells and exits for each.
    static func walk(devices: Int, steps: Int, seed: UInt64 = 7) -> [Item] {
        let waypoints: [(Double, Double)] = [(40.7500, -73.9800), (40.7550, -73.9750), (40.7600, -73.9700), (40.7720, -73.9710)]
        var state = seed
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        var items: [Item] = []
        for step in 0..<steps {
            for d in 0..<devices {
                let leg = (step / 6 + d) % (2 * waypoints.count - 2)
                let from = leg < waypoints.count - 1 ? leg : 2 * waypoints.count - 2 - leg
                let to = leg < waypoints.count - 1 ? from + 1 : from - 1
                let f = Double(step % 6) / 4.0 > 1 ? 1 : Double(step % 6) / 4.0
                let lat = waypoints[from].0 + (waypoints[to].0 - waypoints[from].0) * f + noise() * 0.0004
                let lng = waypoints[from].1 + (waypoints[to].1 - waypoints[from].1) * f + noise() * 0.0004
                let time = Timestamp(milliseconds: start + Int64(step) * 20_000 + Int64(d))
                items.append(Item(device: "dev-\(d)", fix: Fix(timestamp: time, latitude: lat, longitude: lng, accuracy: 10)))
            }
        }
        return items
    }

    static func ndjson(_ items: [Item]) -> Data {
        Data(items.map { ndjsonLine($0) }.joined(separator: "\n").utf8)
    }

    static func ndjsonLine(_ item: Item) -> String {
        var line = "{\"deviceId\":\"\(item.device)\",\"timestamp\":\(item.fix.timestamp.milliseconds),\"lat\":\(item.fix.latitude),\"lng\":\(item.fix.longitude)"
        if let accuracy = item.fix.accuracy { line += ",\"accuracy\":\(accuracy)" }
        return line + "}"
    }

    static func csv(_ items: [Item]) -> Data {
        var text = "device_id,timestamp,lat,lon,accuracy\n"
        for item in items {
            text += "\(item.device),\(item.fix.timestamp.milliseconds),\(item.fix.latitude),\(item.fix.longitude),\(item.fix.accuracy ?? 0)\n"
        }
        return Data(text.utf8)
    }

    /// The library's answer: each device's `DeviceTracker` fed the items in order, events with
    /// their device ids, in the order they were made.
    final class Reference {
        let context: TrackerContext
        let evaluator: ContainmentEvaluator
        var trackers: [String: DeviceTracker] = [:]

        init(fencesPath: String, configuration: TrackerConfiguration = TrackerConfiguration()) throws {
            let set = try FenceSet.load(path: fencesPath)
            context = try TrackerContext(fenceSet: set, configuration: configuration)
            evaluator = try ContainmentEvaluator(fenceSet: set)
        }

        func feed(_ items: [Item]) throws -> [GeofenceEvent] {
            var all: [GeofenceEvent] = []
            for item in items {
                var tracker = trackers[item.device] ?? DeviceTracker(context: context)
                var events = try tracker.update(try context.observe(item.fix, using: evaluator))
                for k in events.indices { events[k].deviceID = item.device }
                trackers[item.device] = tracker
                all += events
            }
            return all
        }
    }

    /// The events of a response (its `events` array) or of NDJSON lines, decoded.
    static func events(inResponse result: HTTPResult) throws -> [GeofenceEvent] {
        let lines = (result.json["events"] as? [Any] ?? []).map { try! JSONSerialization.data(withJSONObject: $0) }
        return try lines.map { try JSONDecoder().decode(GeofenceEvent.self, from: $0) }
    }

    /// The `seq` and `id` of each event of a response.
    static func seqsAndIDs(inResponse result: HTTPResult) -> [(seq: Int, id: String)] {
        (result.json["events"] as? [[String: Any]] ?? []).map { ($0["seq"] as? Int ?? -1, $0["id"] as? String ?? "") }
    }
}
