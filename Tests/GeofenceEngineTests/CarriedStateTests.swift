import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// The state file's binary forms: trackers round-trip exactly (checked against the JSON
/// snapshot, the slow obvious twin), and damaged bytes are errors, never traps.
@Suite("Carried state files")
struct CarriedStateTests {
    typealias F = EventsFixtures

    /// Trackers after seeded random walks among seeded fences, with their context.
    static func trackers(seed: UInt64, devices: Int) throws -> (TrackerContext, [(String, DeviceTracker)]) {
        var rng = SplitMix64(seed: seed)
        let fences = try FenceSet(FenceUpdateEquivalenceTests.fences(&rng, count: 25))
        let configuration = TrackerConfiguration(ignorePeriod: 30, dwell: 45, presenceInterval: 60, stopSeconds: 60, stopRadius: 80)
        let context = try TrackerContext(fenceSet: fences, configuration: configuration)
        let evaluator = try ContainmentEvaluator(fenceSet: fences)
        var out: [(String, DeviceTracker)] = []
        for d in 0..<devices {
            var tracker = DeviceTracker(context: context)
            for fix in FenceUpdateEquivalenceTests.walk(&rng, until: rng.double(0...900)) {
                var f = fix
                if rng.chance(0.3) { f.accuracy = rng.double(1...50) }
                if rng.chance(0.1) { f.level = rng.int(-2...5) }
                _ = try tracker.update(context.observe(f, using: evaluator))
            }
            out.append((String(format: "device-%04d", d), tracker))
        }
        return (context, out)
    }

    static func file(_ context: TrackerContext, _ trackers: [(String, DeviceTracker)], watermark: Int64? = 42) -> [UInt8] {
        var devices = ByteWriter()
        for (id, tracker) in trackers { CarriedState.deviceEntry(id: id, tracker: tracker, to: &devices) }
        return CarriedState.fileBytes(
            fenceSet: context.fenceSet, watermark: watermark, shard: ShardSpec("1/3")!, configuration: context.configuration,
            deviceCount: trackers.count, devices: devices.bytes)
    }

    @Test("trackers round-trip through the file exactly (the JSON snapshot is the twin), and carry on alike", arguments: testSeeds(sized(full: 8, quick: 2)))
    func roundTrip(seed: UInt64) throws {
        let (context, trackers) = try Self.trackers(seed: seed, devices: 60)
        let state = try CarriedState(bytes: Self.file(context, trackers), path: "mem")
        #expect(state.ids == trackers.map(\.0) && state.watermark == 42 && state.shard == ShardSpec("1/3")!)
        #expect(state.configuration == context.configuration && state.fenceSet.count == context.fenceSet.count)
        let restoredContext = try TrackerContext(fenceSet: state.fenceSet, configuration: state.configuration)
        let evaluator = try ContainmentEvaluator(fenceSet: state.fenceSet)
        var rng = SplitMix64(seed: seed ^ 0xABC)
        for (k, (id, original)) in trackers.enumerated() {
            var restored = try state.tracker(k, context: restoredContext)
            #expect(restored.snapshot() == original.snapshot(), "\(id)")
            // The same next fixes give the same events.
            var twin = original
            let later = (twin.latestTime?.milliseconds ?? 0) + 1000
            for fix in FenceUpdateEquivalenceTests.walk(&rng, until: 300) {
                let f = Fix(timestamp: Timestamp(milliseconds: later + fix.timestamp.milliseconds), latitude: fix.latitude, longitude: fix.longitude)
                let a = try twin.update(twin.context.observe(f, using: try ContainmentEvaluator(fenceSet: twin.fenceSet)))
                let b = try restored.update(restoredContext.observe(f, using: evaluator))
                #expect(a == b, "\(id)")
            }
            #expect(twin.finish() == restored.finish(), "\(id)")
        }
    }

    /// What lets a run copy an untouched device's entry instead of decoding and encoding it
    /// (``CarriedState/appendEntry(_:to:)``): encoding a decoded tracker gives its bytes back.
    @Test("a carried entry copied as is equals its tracker decoded and encoded again", arguments: testSeeds(sized(full: 6, quick: 2)))
    func entriesAreCanonical(seed: UInt64) throws {
        let (context, trackers) = try Self.trackers(seed: seed, devices: 80)
        let state = try CarriedState(bytes: Self.file(context, trackers), path: "mem")
        let restoredContext = try TrackerContext(fenceSet: state.fenceSet, configuration: state.configuration)
        var all: [UInt8] = []
        for k in trackers.indices {
            var copied: [UInt8] = []
            state.appendEntry(k, to: &copied)
            var encoded = ByteWriter()
            CarriedState.deviceEntry(id: state.ids[k], tracker: try state.tracker(k, context: restoredContext), to: &encoded)
            #expect(copied == encoded.bytes, "seed \(seed), device \(state.ids[k])")
            all += copied
        }
        // The entries, back to back, are the file's devices: a file written from them is the same file.
        let rewritten = CarriedState.fileBytes(
            fenceSet: state.fenceSet, watermark: 42, shard: ShardSpec("1/3")!, configuration: state.configuration,
            deviceCount: trackers.count, devices: all)
        #expect(rewritten == Self.file(context, trackers))
    }

    @Test("every truncation and many bit flips are errors that name the file, never a trap")
    func damage() throws {
        let (context, trackers) = try Self.trackers(seed: 7, devices: 5)
        let good = Self.file(context, trackers)
        let step = max(1, good.count / sized(full: 4000, quick: 300))
        for n in stride(from: 0, to: good.count, by: step) {
            #expect(throws: SnapshotError.self) { try CarriedState(bytes: Array(good.prefix(n)), path: "cut.state") }
        }
        var rng = SplitMix64(seed: 99)
        for _ in 0..<sized(full: 2000, quick: 200) {
            var bad = good
            bad[rng.int(0...(bad.count - 1))] ^= UInt8(1 << rng.int(0...7))
            #expect(throws: SnapshotError.self) { try CarriedState(bytes: bad, path: "flip.state") }
        }
        do {
            _ = try CarriedState(bytes: Array(good.prefix(good.count - 3)), path: "named.state")
        } catch {
            #expect("\(error)".hasPrefix("named.state: snapshot is truncated"), "\(error)")
        }
        // The checksums pass but a device record lies (written by hand): an error on decoding it.
        var devices = ByteWriter()
        devices.blob(Array("x".utf8))
        devices.blob([0, 0, 1, 99, 0])  // flags 0, fix count 0, 1 track at slot 99 of 25
        let lying = CarriedState.fileBytes(
            fenceSet: context.fenceSet, watermark: nil, shard: .all, configuration: context.configuration, deviceCount: 1,
            devices: devices.bytes)
        let state = try CarriedState(bytes: lying, path: "lying.state")
        #expect(throws: SnapshotError.self) { try state.tracker(0, context: context) }
    }
}
