import Foundation
import GeofenceEngine
import GeofenceTestSupport
import Testing

/// The README's library example, compiled and run, so the documentation cannot drift from
/// the API.
@Suite("README example")
struct ReadmeExampleTests {
    @Test("the library walk-through runs and gives the expected answers")
    func walkThrough() throws {
        let dir = try TestFolders.make("readme")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fences = try FenceSet([Fence(geofenceID: "home", shape: .circle(center: Coordinate(latitude: 40.75, longitude: -73.98), radius: 150))])
        let compiled = dir.appendingPathComponent("fences.fences").path
        try fences.write(to: compiled)
        #expect(try FenceSet.open(path: compiled).geofenceID(at: 0) == "home" && FenceSet.load(path: compiled).count == 1)

        let evaluator = try ContainmentEvaluator(fenceSet: fences)
        let ids = try evaluator.containingIDs(latitude: 40.75, longitude: -73.98)
        let nearest = try evaluator.nearest(latitude: 40.75, longitude: -73.98, count: 10, filter: NearestFilter())
        #expect(ids == ["home"] && nearest == [NearestFence(geofenceID: "home", distance: 0)])
        #expect(throws: CoordinateError.self) { try evaluator.containingIDs(latitude: 91, longitude: 0) }

        let everyCore = try ParallelContainmentEvaluator(fenceSet: fences)
        var pairs = ContainmentPairs()
        try everyCore.containing(latitudes: [40.75, 40.748], longitudes: [-73.98, -73.98], into: &pairs)
        #expect(pairs.count == 1 && pairs[0].fix == 0 && pairs[0].slot == fences.slot(of: "home")!)

        let planner = try RegistrationPlanner(budget: .ios, reservedSlots: 2)
        let plan = try planner.plan(latitude: 40.75, longitude: -73.98, accuracy: 15, registered: ["home"], evaluator: evaluator)
        #expect(plan.add.isEmpty && plan.remove.isEmpty)

        let configuration = TrackerConfiguration(ignorePeriod: .seconds(30), dwell: .seconds(60))
        #expect(configuration == TrackerConfiguration(ignorePeriod: 30, dwell: 60))
        let monitor = try GeofenceMonitor(fenceSet: fences, configuration: configuration)
        let now = Date()
        let events = try monitor.update(Fix(timestamp: now, latitude: 40.75, longitude: -73.98, accuracy: 12))
        #expect(events.map(\.type) == [.entrance] && events.map(\.geofenceID) == ["home"])
        let states = monitor.placesReading(at: now)
        #expect(states.current == "home")
        try SnapshotStore.write(monitor.snapshot(), to: dir.appendingPathComponent("device.snapshot").path)

        let csv = dir.appendingPathComponent("fixes.csv").path
        try "device_id,timestamp,lat,lon\nd,0,40.75,-73.98\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let summary = try BatchEvaluator(fenceSet: fences, options: BatchOptions(threads: 8))
            .run(fixes: csv, output: dir.appendingPathComponent("events.ndjson").path)
        #expect(summary.processed == 1 && summary.events == 2)  // the entrance, and the dwell due after the last fix
        #expect(summary.eventsByType == [.entrance: 1, .dwell: 1, .exit: 0, .presence: 0, .venueConfirmed: 0])
    }
}
