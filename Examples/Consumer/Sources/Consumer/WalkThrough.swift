import Foundation
import GeofenceEngine

// The code blocks of GettingStarted.md (Sources/GeofenceEngine/GeofenceEngine.docc) appear
// here verbatim, in order, between the `// Checks` lines; `scripts/check-article-code.py`
// fails when they drift apart.

/// The getting-started walk-through: fences, containment, nearest, a monitor, a snapshot
/// restore, a plan after a fence update, and a batch run, each answer checked.
func walkThrough(folder: URL, checks: inout Checks) throws {
    // MARK: Fences
    // GeoJSON (a FeatureCollection or GeoJSONSeq) or a compiled fence file
    let fences = try FenceSet.load(path: "data/fences.geojson")

    // Checks
    checks.expect(fences.count == 4, "4 fences loaded, found \(fences.count)")

    // MARK: Containment
    let evaluator = try ContainmentEvaluator(fenceSet: fences)
    let atHome = try evaluator.containingIDs(
        latitude: 40.75, longitude: -73.98, level: nil)
    let inPark = try evaluator.containingIDs(
        latitude: 40.7705, longitude: -73.971, level: nil)
    let inHole = try evaluator.containingIDs(
        latitude: 40.772, longitude: -73.971, level: nil)
    // atHome == ["home"], inPark == ["park"]
    // inHole == []: a hole is outside its polygon

    // Checks
    checks.expect(atHome == ["home"], "containment at home: \(atHome)")
    checks.expect(inPark == ["park"], "containment in the park: \(inPark)")
    checks.expect(inHole.isEmpty, "containment in the park's hole: \(inHole)")

    // MARK: Many fixes
    let latitudes = [40.75, 40.7705, 40.772, 40.748]
    let longitudes = [-73.98, -73.971, -73.971, -73.98]
    let everyCore = try ParallelContainmentEvaluator(fenceSet: fences)
    var pairs = ContainmentPairs()
    try everyCore.containing(
        latitudes: latitudes, longitudes: longitudes, into: &pairs)
    for k in 0..<pairs.count {
        let (fix, slot) = pairs[k]
        print(fix, fences.geofenceID(at: slot))
    }
    // 0 home, 1 park: fix 2 is in the park's hole, fix 3 in no fence

    // Checks
    let found = (0..<pairs.count).map { "\(pairs[$0].fix) \(fences.geofenceID(at: pairs[$0].slot))" }
    checks.expect(found == ["0 home", "1 park"], "pairs of the batch: \(found)")
    // The same pairs on three threads, for a batch large enough to use them.
    let many = 3 * ParallelContainmentEvaluator.parallelMinimum
    let manyLatitudes = (0..<many).map { latitudes[$0 % 4] }, manyLongitudes = (0..<many).map { longitudes[$0 % 4] }
    var threePairs = ContainmentPairs(), onePairs = ContainmentPairs()
    try ParallelContainmentEvaluator(fenceSet: fences, threads: 3).containing(
        latitudes: manyLatitudes, longitudes: manyLongitudes, into: &threePairs)
    try evaluator.containing(latitudes: manyLatitudes, longitudes: manyLongitudes, into: &onePairs)
    checks.expect(threePairs.count == many / 2 && threePairs == onePairs,
        "three threads: \(threePairs.count) pairs, one evaluator \(onePairs.count)")

    // MARK: Nearest
    let nearest = try evaluator.nearest(latitude: 40.75, longitude: -73.98, count: 2)
    for fence in nearest {
        print(fence.geofenceID, fence.distance)
    }
    // home 0.0 (inside), then office about 1,300 m (from the fix to its edge)

    // Checks
    checks.expect(nearest.map(\.geofenceID) == ["home", "office"], "nearest ids: \(nearest)")
    checks.expect(nearest.first?.distance == 0, "distance to the fence holding the fix: \(nearest)")
    checks.expect(nearest.count == 2 && (1250...1350).contains(nearest[1].distance), "distance to the office: \(nearest)")

    // MARK: Monitor
    let configuration = TrackerConfiguration(ignorePeriod: 30, dwell: 60)
    let monitor = try GeofenceMonitor(
        fenceSet: fences, configuration: configuration)
    let start = Timestamp(milliseconds: 1_700_000_000_000)
    func fix(_ seconds: Double, _ latitude: Double, _ longitude: Double) -> Fix {
        Fix(timestamp: start.adding(seconds: seconds),
            latitude: latitude, longitude: longitude, accuracy: 10)
    }
    var events: [GeofenceEvent] = []
    events += try monitor.update(fix(0, 40.748, -73.98))     // 220 m south: nothing
    events += try monitor.update(fix(10, 40.75, -73.98))     // entrance at 10 s
    events += try monitor.update(fix(80, 40.7501, -73.9801)) // dwell, due at 70 s
    for event in events {
        let seconds = event.timestamp.seconds(since: start)
        print(event.type.name, event.geofenceID, seconds)
    }
    // entrance home 10.0, dwell home 70.0

    // Checks
    checks.expect(events.map(\.type) == [.entrance, .dwell], "monitor events: \(events)")
    checks.expect(events.allSatisfy { $0.geofenceID == "home" }, "monitor events' fence: \(events)")
    checks.expect(events.map { $0.timestamp.seconds(since: start) } == [10, 70], "monitor event times: \(events)")
    checks.expect(monitor.placesReading(at: start.adding(seconds: 80)).current == "home", "current place")

    // MARK: Snapshot
    let path = folder.appendingPathComponent("device.snapshot").path
    try SnapshotStore.write(monitor.snapshot(), to: path)   // atomic

    // Later, maybe in another process: the same fences and configuration,
    // then the snapshot.
    let snapshot = try SnapshotStore.read(DeviceSnapshot.self, from: path)
    let context = try TrackerContext(fenceSet: fences, configuration: configuration)
    let (tracker, _) = try DeviceTracker.restore(snapshot, context: context)
    let restored = try GeofenceMonitor(tracker: tracker)
    let leaving = try restored.update(fix(200, 40.76, -73.98))   // exit at 200 s

    // Checks
    let original = try monitor.update(fix(200, 40.7600, -73.9800))
    checks.expect(leaving.map(\.type) == [.exit], "restored monitor's events: \(leaving)")
    checks.expect(leaving == original, "the restored monitor answers as the original: \(leaving) vs \(original)")

    // MARK: Plan after a fence update
    // The OS monitors these four regions; then the app downloads
    // fences without "gym".
    let registered = ["gym", "home", "office", "park"]
    let updated = try FenceSet(fences.fences.filter { $0.geofenceID != "gym" })
    let planner = try RegistrationPlanner(
        budget: .ios, reservedSlots: 2,
        hysteresisFraction: RegistrationPlanner.recommendedHysteresisFraction)
    let plan = try planner.plan(
        latitude: 40.75, longitude: -73.98, accuracy: 10,
        registered: registered, evaluator: ContainmentEvaluator(fenceSet: updated))
    // plan.remove == ["gym"], plan.add == []: stop monitoring plan.remove,
    // start monitoring plan.add.
    // plan.monitor: every region to monitor (polygons as their enclosing circle).
    // plan.refreshRegion: plan again when the device leaves it
    // (nil: every fence is monitored).

    // Checks
    checks.expect(plan.remove == ["gym"], "plan.remove after the update: \(plan.remove)")
    checks.expect(plan.add.isEmpty, "plan.add after the update: \(plan.add)")
    checks.expect(plan.monitor.map(\.geofenceID).sorted() == ["home", "office", "park"], "plan.monitor: \(plan.monitor)")
    checks.expect(plan.refreshRegion == nil, "no refresh region when every fence fits: \(String(describing: plan.refreshRegion))")

    // MARK: Follow a fence update
    // The app downloads a new catalog (here: the fences without "home")
    // as bytes: GeoJSON, GeoJSONSeq or a compiled fence file.
    let downloaded = try FenceSet(fences.fences.filter { $0.geofenceID != "home" }).compiledBytes()
    let phone = try GeofenceMonitor(fenceSet: fences, configuration: configuration)
    _ = try phone.update(fix(10, 40.75, -73.98))              // entrance home
    let catalog = try FenceSet.load(bytes: downloaded)
    let moved = try phone.moveFences(to: catalog, at: start.adding(seconds: 30))
    // moved: an exit from "home" at 30 s with reason .fenceRemoved;
    // the phone now answers for the new catalog
    let line = try JSONEncoder().encode(moved[0])   // the CLI's event JSON

    // Checks
    checks.expect(moved.map(\.type) == [.exit] && moved.first?.reason == .fenceRemoved, "removal exit: \(moved)")
    checks.expect(moved.first?.geofenceID == "home" && moved.first?.radius == 150, "removal exit's fence: \(moved)")
    checks.expect(String(decoding: line, as: UTF8.self).contains(#""reason":"fenceRemoved""#), "event JSON")
    checks.expect(try phone.update(fix(40, 40.75, -73.98)).isEmpty, "no event of the removed fence")

    // MARK: Batch
    let output = folder.appendingPathComponent("events.ndjson").path
    let options = BatchOptions(configuration: configuration, threads: 2)
    let summary = try BatchEvaluator(fenceSet: fences, options: options)
        .run(fixes: "data/fixes.csv", output: output)
    print(summary.line)   // rows read, processed, rejected (by reason), events
    let entrances = summary.eventsByType[.entrance, default: 0]
    // 2 entrances: phone-a at home, phone-b in the park;
    // the row at latitude 91 is rejected

    // Checks
    let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
    checks.expect(summary.rowsRead == 6 && summary.processed == 5, "batch rows: \(summary.line)")
    checks.expect(summary.rejections.counts[.coordinate] == 1, "batch rejections: \(summary.line)")
    checks.expect(entrances == 2 && summary.events == 5, "batch events: \(summary.line)")
    checks.expect(lines.count == summary.events, "events written: \(lines.count) lines")
    checks.expect(lines.first?.hasPrefix(#"{"eventType":"entrance","timestamp":1700000000000,"deviceId":"phone-a","geofenceId":"home""#) == true,
                  "first event line: \(lines.first ?? "none")")
}
