import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The library surface of fence updates: mismatched sets refused, snapshots restored onto
/// changed sets, fences from bytes, events and snapshots as bytes.
@Suite("Fence updates: API")
struct FenceUpdateAPITests {
    typealias F = EventsFixtures

    @Test("an evaluator of another fence set is refused with wrongFenceSet, never a trap or another fence's answer")
    func mismatchedEvaluator() throws {
        let mine = try FenceSet([F.circle("a", radius: 100)])
        // Same slot count (slot 0 in range): used to answer silently for the wrong fence.
        let other = try FenceSet([F.circle("b", east: 5000, radius: 100)])
        // More slots (slot 1 out of range): used to trap ("observation names slot 1").
        let bigger = try FenceSet([F.circle("x", east: 9000, radius: 1), F.circle("y", radius: 100)])
        let context = try TrackerContext(fenceSet: mine)
        var tracker = DeviceTracker(context: context)
        for set in [other, bigger] {
            let evaluator = try ContainmentEvaluator(fenceSet: set)
            #expect(throws: TrackerRejection.wrongFenceSet("the evaluator is built on another fence set than the tracker's")) {
                try context.observe(F.fix(0, east: 0), using: evaluator)
            }
            let theirs = try TrackerContext(fenceSet: set)
            let observation = try theirs.observe(F.fix(0, east: 0), using: evaluator)
            var sink: [GeofenceEvent] = []
            #expect(tracker.update(observation, appendingTo: &sink)?.reason == .wrongFenceSet)
            #expect(throws: TrackerRejection.self) { try tracker.recalculateNearby(observation) }
        }
        #expect(tracker.latestTime == nil, "nothing changed")
        let update = try FenceUpdate(from: TrackerContext(fenceSet: other), to: mine, at: F.time(1))
        #expect(throws: TrackerRejection.self) { try tracker.apply(update) }
    }

    @Test("a snapshot restores onto a changed set: removed fences exit at its latest time, changed ones keep their state")
    func restoreOntoChangedSet() throws {
        let old = try FenceSet([F.circle("a", radius: 100), F.circle("b", radius: 200), F.circle("c", east: 3000, radius: 10)])
        let m = try GeofenceMonitor(fenceSet: old, configuration: TrackerConfiguration(ignorePeriod: 30, dwell: 60))
        _ = try m.update(F.fix(0, east: 0))
        _ = try m.update(F.fix(10, east: 0))
        let snapshot = try SnapshotStore.decode(DeviceSnapshot.self, from: SnapshotStore.encode(m.snapshot()))
        #expect(snapshot.fences.allSatisfy { $0.fingerprint != nil && $0.radius != nil })
        let new = try FenceSet([F.circle("b", radius: 250), F.circle("d", radius: 5)])
        let context = try TrackerContext(fenceSet: new, configuration: m.context.configuration)
        let (tracker, events) = try DeviceTracker.restore(snapshot, context: context)
        #expect(events.map { brief($0) } == ["exit a @10"] && events[0].reason == .fenceRemoved && events[0].radius == 100)
        #expect(tracker.reportedInside == [new.slot(of: "b")!])
        let silent = try DeviceTracker.restore(snapshot, context: context, onFenceRemoved: .silent)
        #expect(silent.events.isEmpty && silent.tracker.reportedInside == tracker.reportedInside)
        // Onto the same set: nothing happens, and it carries on as the original.
        let same = try DeviceTracker.restore(snapshot, context: m.context)
        #expect(same.events.isEmpty && same.tracker.snapshot() == m.snapshot())
    }

    @Test("fences load from bytes in every format, with errors that name the input")
    func fencesFromBytes() throws {
        let set = try FenceSet([F.circle("a", radius: 100), F.square("p", east: 500, half: 30)])
        let compiled = set.compiledBytes()
        let fromCompiled = try FenceSet.load(bytes: compiled)
        var features: [JSONValue] = []
        for fence in set.fences {
            features.append(.object(JSONObject(members: [
                .init(key: "type", value: .string("Feature")),
                .init(key: "geometry", value: GeoJSONFenceEncoder.geometry(fence.shape)),
                .init(key: "properties", value: .object(JSONObject(
                    members: [.init(key: "id", value: .string(fence.geofenceID))]
                        + (fence.shape.isCircle ? [.init(key: "radius", value: .double(fence.radius)!)] : [])))),
            ])))
        }
        var geojson: [UInt8] = []
        JSONWriter.write(.object(JSONObject(members: [
            .init(key: "type", value: .string("FeatureCollection")), .init(key: "features", value: .array(features)),
        ])), to: &geojson)
        let fromGeoJSON = try FenceSet.load(bytes: Data(geojson))
        for loaded in [fromCompiled, fromGeoJSON] {
            #expect(loaded.count == 2 && FenceSet.Change(from: set, to: loaded).unchanged == ["a", "p"])
        }
        let sequence = Array("""
            {"type":"Feature","geometry":{"type":"Point","coordinates":[10,50]},"properties":{"id":"s","radius":25}}
            """.utf8)
        #expect(try FenceSet.load(bytes: sequence).geofenceID(at: 0) == "s")
        #expect { try FenceSet.load(bytes: Array("not json".utf8), name: "https://example.invalid/fences") } throws: { error in
            "\(error)".contains("https://example.invalid/fences")
        }
        var damaged = compiled
        damaged[damaged.count / 2] ^= 0xFF
        #expect(throws: (any Error).self) { try FenceSet.load(bytes: damaged) }
    }

    @Test("events encode in the CLI's line form and decode back")
    func eventCodable() throws {
        var fence = F.circle("a", radius: 100, level: 3)
        fence.properties = JSONObject(members: [.init(key: "name", value: .string("Café")), .init(key: "n", value: .integer(7))])
        let m = try GeofenceMonitor(fenceSet: FenceSet([fence]))
        let event = try #require(try m.update(F.fix(0, east: 0, level: 3)).first)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(event), as: UTF8.self)
        #expect(json.contains(#""eventType":"entrance""#) && json.contains(#""geofenceId":"a""#) && json.contains(#""level":3"#))
        #expect(json.contains(#""geofenceProperties":{"n":7,"name":"Café"}"#) && !json.contains("reason") && !json.contains("deviceId"))
        let back = try JSONDecoder().decode(GeofenceEvent.self, from: Data(json.utf8))
        #expect(back == event && back.radius == 100 && back.level == 3 && back.properties["n"] == .integer(7))
        let line = #"{"eventType":"exit","timestamp":5,"deviceId":"d1","geofenceId":"g","lat":1.5,"lng":2.5,"radius":10,"geofenceProperties":{},"reason":"fenceRemoved"}"#
        let removal = try JSONDecoder().decode(GeofenceEvent.self, from: Data(line.utf8))
        #expect(removal.reason == .fenceRemoved && removal.deviceID == "d1" && removal.type == .exit)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(GeofenceEvent.self, from: Data(#"{"eventType":"teleport","timestamp":1,"geofenceId":"g","radius":1}"#.utf8))
        }
    }

    @Test("snapshots encode to bytes and decode back; version 1 snapshots still read")
    func snapshotBytes() throws {
        let m = try GeofenceMonitor(fenceSet: FenceSet([F.circle("a", radius: 100)]))
        _ = try m.update(F.fix(0, east: 0))
        let fleet = FleetSnapshot(devices: ["d": m.snapshot()])
        let bytes = try SnapshotStore.encode(fleet)
        #expect(try SnapshotStore.decode(FleetSnapshot.self, from: bytes) == fleet)
        var v1 = m.snapshot()
        v1.version = 1
        for k in v1.fences.indices { v1.fences[k].fingerprint = nil }
        let restored = try DeviceTracker.restore(v1, context: m.context)
        #expect(restored.events.isEmpty && restored.tracker.reportedInside == [0])
        #expect(throws: SnapshotError.self) { try SnapshotStore.decode(FleetSnapshot.self, from: Array(bytes.dropLast(5))) }
    }
}
