import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// Snapshots: round trips, atomic writes, and clear errors for bad files.
@Suite("Snapshots")
struct SnapshotTests {
    typealias F = EventsFixtures
    static let fences = [F.circle("A", radius: 100), F.circle("B", east: 50, radius: 100, rank: 1), F.circle("C", east: 3000, radius: 50)]

    /// A tracker with something in every part of its state.
    static func busyTracker() throws -> DeviceTracker {
        // Dwell 500 s: the visits still await venueConfirmed, so stop fixes are kept.
        let monitor = try GeofenceMonitor(fenceSet: FenceSet(fences), configuration: TrackerConfiguration(dwell: 500))
        for s in stride(from: 0.0, through: 200, by: 10) { _ = try monitor.update(F.fix(s, east: 10, accuracy: 5, level: 1)) }
        _ = try monitor.update(F.fix(205, east: 120))  // A pending exit, B still inside
        try monitor.apply(.entry("C", at: F.time(206)))
        return monitor.tracker
    }

    static func directory() throws -> URL {
        try TestFolders.make("geofence-snapshots")
    }

    @Test("device snapshot: write, read, restore, and the tracker carries on the same")
    func deviceRoundTrip() throws {
        let tracker = try Self.busyTracker()
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("device.snapshot").path
        try SnapshotStore.write(tracker.snapshot(), to: path)
        let read = try SnapshotStore.read(DeviceSnapshot.self, from: path)
        #expect(read == tracker.snapshot())
        #expect(!read.fences.isEmpty && !read.stopHistory.isEmpty && !read.places.entered.isEmpty && read.lastFix != nil)
        var restored = try DeviceTracker.restore(read, context: tracker.context).tracker
        var original = tracker
        #expect(restored.finish() == original.finish())
        #expect(restored.placesReading == original.placesReading)
    }

    @Test("fleet snapshot: many devices in one file")
    func fleetRoundTrip() throws {
        let one = try Self.busyTracker().snapshot()
        let empty = try DeviceTracker(fenceSet: FenceSet(Self.fences)).snapshot()
        #expect(empty.fences.isEmpty && empty.latestTime == nil)
        let fleet = FleetSnapshot(devices: ["bus-1": one, "bus \"2\"": empty])
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("fleet.snapshot").path
        try SnapshotStore.write(fleet, to: path)
        #expect(try SnapshotStore.read(FleetSnapshot.self, from: path) == fleet)
    }

    /// A process id no process has (above any `pid_max`).
    static let deadProcess: Int32 = Int32.max - 1

    @Test("a killed writer's partial temporary file is ignored by readers and removed by the next write")
    func crashMidWrite() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("device.snapshot").path
        let before = try DeviceTracker(fenceSet: FenceSet(Self.fences)).snapshot()
        try SnapshotStore.write(before, to: path)
        let after = try Self.busyTracker().snapshot()
        // What a writer killed after 150 bytes leaves: its temporary file, named as the
        // writer names it, with the id of a process that no longer exists.
        let full = try SnapshotStore.encode(after, path: path)
        let stale = AtomicFileWriter.temporaryPrefix(for: path) + "\(Self.deadProcess)-0-0123abcd"
        try Data(full.prefix(150)).write(to: URL(fileURLWithPath: stale))
        // A live writer's temporary file (this process's) must survive another write.
        let live = try AtomicFileWriter(path: path)
        #expect(try SnapshotStore.read(DeviceSnapshot.self, from: path) == before)
        // The next write succeeds and removes the dead writer's leftover, not the live one.
        try SnapshotStore.write(after, to: path)
        #expect(try SnapshotStore.read(DeviceSnapshot.self, from: path) == after)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live.temporaryPath))
        live.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["device.snapshot"])
    }

    @Test("threads racing writes and reads on one path: every write lands, every read is complete")
    func concurrentWriters() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("device.snapshot").path
        // Distinct snapshots (each writer has its own), all valid.
        var snapshots: [DeviceSnapshot] = []
        for k in 0..<4 {
            var s = try Self.busyTracker().snapshot()
            s.latestTime = 1_000_000 + Int64(k)
            snapshots.append(s)
        }
        try SnapshotStore.write(snapshots[0], to: path)
        let written = Set(snapshots.map { $0.latestTime })
        let writers = 4, readers = 4, rounds = 150
        let failures = DisjointSlots<[String]>(repeating: [], count: writers + readers)
        let reads = DisjointSlots<Int>(repeating: 0, count: readers)
        let shared = snapshots
        ParallelWorkers.run(count: writers + readers, threads: writers + readers) { k, _ in
            if k < writers {
                for _ in 0..<rounds {
                    do { try SnapshotStore.write(shared[k], to: path) } catch { failures[k].append("write: \(error)") }
                }
            } else {
                for _ in 0..<rounds * 2 {
                    do {
                        let read = try SnapshotStore.read(DeviceSnapshot.self, from: path)
                        if !written.contains(read.latestTime) { failures[k].append("read an unknown snapshot") }
                        reads[k - writers] += 1
                    } catch {
                        failures[k].append("read: \(error)")
                    }
                }
            }
        }
        let all = failures.storage.flatMap { $0 }
        #expect(all.isEmpty, "\(all.count) failures, first: \(all.first ?? "")")
        #expect(reads.storage.reduce(0, +) == readers * rounds * 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["device.snapshot"])
    }

    /// Writes a good snapshot, lets `damage` change its bytes, and returns the read error.
    static func readError(_ damage: (inout [UInt8]) -> Void) throws -> SnapshotError {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("device.snapshot").path
        try SnapshotStore.write(try busyTracker().snapshot(), to: path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        damage(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SnapshotStore.read(DeviceSnapshot.self, from: path)
        } catch {
            #expect(error.path == path && error.description.hasPrefix(path + ": "))
            return error
        }
        Issue.record("the damaged snapshot was read")
        return SnapshotError(path: nil, problem: .io("none"))
    }

    @Test("a wrong version is named with both versions")
    func wrongVersion() throws {
        let error = try Self.readError { bytes in
            let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\"version\":\(DeviceSnapshot.currentVersion),", with: "\"version\":7,")
            bytes = Array(text.utf8)
        }
        #expect(error.problem == .wrongVersion(found: 7, expected: DeviceSnapshot.currentVersion))
        #expect(error.description.contains("version 7") && error.description.contains("version \(DeviceSnapshot.currentVersion)"))
    }

    @Test("a truncated file says so", arguments: [0, 40, 0.5])
    func truncated(keep: Double) throws {
        let error = try Self.readError { bytes in bytes = Array(bytes.prefix(keep < 1 ? Int(Double(bytes.count) * keep) : Int(keep))) }
        guard case .truncated = error.problem else {
            Issue.record("expected truncated, got \(error)")
            return
        }
        #expect(error.description.contains("truncated"))
    }

    @Test("a damaged file says it is corrupt")
    func corrupt() throws {
        let flipped = try Self.readError { bytes in bytes[bytes.count - 20] ^= 0x01 }
        #expect(flipped.problem == .corrupt("checksum mismatch (the content was damaged)"))
        let garbage = try Self.readError { bytes in bytes = Array("hello, world\nmore\n".utf8) }
        #expect(garbage.problem == .corrupt("the first line is not a snapshot header"))
        let noHeader = try Self.readError { bytes in bytes = Array(repeating: UInt8(ascii: "x"), count: 500) }
        #expect(noHeader.problem == .corrupt("no header line (not a snapshot file)"))
    }

    @Test("a fleet snapshot read as a device snapshot is refused")
    func wrongKind() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("fleet.snapshot").path
        try SnapshotStore.write(FleetSnapshot(devices: [:]), to: path)
        #expect(throws: SnapshotError(path: path, problem: .corrupt("it holds a fleet snapshot, not a device snapshot"))) {
            try SnapshotStore.read(DeviceSnapshot.self, from: path)
        }
    }

    @Test("a missing file names the file")
    func missing() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("nope.snapshot").path
        do {
            _ = try SnapshotStore.read(DeviceSnapshot.self, from: path)
            Issue.record("read a missing file")
        } catch {
            guard case .io = error.problem else { Issue.record("expected io, got \(error)"); return }
            #expect(error.description.contains(path) && error.description.contains("No such file"))
        }
    }

    @Test("restoring against a fence set without one of the snapshot's fences applies the removal; an unknown version fails clearly")
    func unknownFence() throws {
        let busy = try Self.busyTracker()
        let snapshot = busy.snapshot()
        let context = try TrackerContext(fenceSet: FenceSet([F.circle("A", radius: 100)]))
        let (tracker, events) = try DeviceTracker.restore(snapshot, context: context)
        let reportedB = busy.reportedInside.map { busy.fenceSet.geofenceID(at: Int($0)) }.contains("B")
        #expect(reportedB && events.map(\.geofenceID) == ["B"] && events.allSatisfy { $0.reason == .fenceRemoved })
        #expect(tracker.snapshot().fences.allSatisfy { $0.geofenceID == "A" })
        var future = snapshot
        future.version = 3
        #expect(throws: SnapshotError(path: nil, problem: .wrongVersion(found: 3, expected: 2))) {
            try DeviceTracker.restore(future, context: try TrackerContext(fenceSet: FenceSet(Self.fences)))
        }
    }
}
