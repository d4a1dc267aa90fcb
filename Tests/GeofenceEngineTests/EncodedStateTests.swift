import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// ``DeviceTracker/encodedState()``: the public compact form of one tracker. The JSON
/// snapshot is its twin: a decoded tracker has the same snapshot and carries on alike, and
/// the form refuses another fence set, damage and other versions with a ``SnapshotError``.
@Suite("Encoded device states")
struct EncodedStateTests {
    @Test("a tracker round-trips (the JSON snapshot is the twin) and carries on alike; the bytes are canonical", arguments: testSeeds(sized(full: 6, quick: 2), base: 411))
    func roundTrip(seed: UInt64) throws {
        let (context, trackers) = try CarriedStateTests.trackers(seed: seed, devices: 40)
        // The same fences loaded again: another object, the same digest.
        let again = try TrackerContext(fenceSet: FenceSet.load(bytes: context.fenceSet.compiledBytes(), name: "again"), configuration: context.configuration)
        let evaluator = try ContainmentEvaluator(fenceSet: again.fenceSet)
        var rng = SplitMix64(seed: seed ^ 0x5EED)
        for (id, original) in trackers {
            let bytes = original.encodedState()
            var restored = try DeviceTracker(encodedState: bytes, context: again)
            #expect(restored.snapshot() == original.snapshot(), "\(id)")
            #expect(restored.encodedState() == bytes, "\(id): canonical")
            var twin = original
            let later = (twin.latestTime?.milliseconds ?? 0) + 1000
            let twinEvaluator = try ContainmentEvaluator(fenceSet: twin.fenceSet)
            for fix in FenceUpdateEquivalenceTests.walk(&rng, until: 300) {
                let f = Fix(timestamp: Timestamp(milliseconds: later + fix.timestamp.milliseconds), latitude: fix.latitude, longitude: fix.longitude)
                #expect(try twin.update(context.observe(f, using: twinEvaluator)) == restored.update(again.observe(f, using: evaluator)), "\(id)")
            }
            #expect(twin.finish() == restored.finish(), "\(id)")
        }
    }

    @Test("threads encoding on one fresh context at once get the same bytes (the set's digest is made once, under a lock)")
    func concurrentDigest() throws {
        let (context, trackers) = try CarriedStateTests.trackers(seed: 3, devices: 4)
        let fresh = try TrackerContext(fenceSet: context.fenceSet, configuration: context.configuration)
        let tracker = try DeviceTracker(encodedState: trackers[0].1.encodedState(), context: context)
        let moved = try DeviceTracker.restore(tracker.snapshot(), context: fresh).tracker
        let results = Platform.Lock()
        nonisolated(unsafe) var encoded: [[UInt8]] = []
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let bytes = moved.encodedState()
            results.withLock { encoded.append(bytes) }
        }
        #expect(encoded.count == 4 && Set(encoded).count == 1)
        #expect(Array(encoded[0].dropFirst(9)) == Array(trackers[0].1.encodedState().dropFirst(9)))
    }

    @Test("another fence set, another version, damage: a SnapshotError, never a tracker on the wrong fences")
    func refusals() throws {
        let (context, trackers) = try CarriedStateTests.trackers(seed: 7, devices: 12)
        let busy = try #require(trackers.map(\.1).max { $0.encodedState().count < $1.encodedState().count })
        let bytes = busy.encodedState()
        #expect(!busy.reportedInside.isEmpty || !busy.rawInside.isEmpty, "a tracker with fence state")
        func problem(_ bytes: [UInt8], _ on: TrackerContext) -> SnapshotError.Problem? {
            do {
                _ = try DeviceTracker(encodedState: bytes, context: on)
                return nil
            } catch {
                return error.problem
            }
        }
        // The same count of fences, one on another level: another digest.
        var fences = Array(context.fenceSet.fences)
        fences[0].level = (fences[0].level ?? 0) + 7
        let moved = try TrackerContext(fenceSet: FenceSet(fences), configuration: context.configuration)
        guard case .corrupt(let detail) = problem(bytes, moved) else { Issue.record("another set accepted"); return }
        #expect(detail.contains("another fence set"))
        #expect(problem([], context) == .truncated("an encoded device state: no bytes"))
        #expect(problem([0x7B] + bytes.dropFirst(), context) == .wrongVersion(found: 0x7B, expected: 0xB1))
        for cut in [1, 5, 9, bytes.count - 1] {
            guard case .truncated = problem(Array(bytes.prefix(cut)), context) else { Issue.record("cut at \(cut) not truncated"); continue }
        }
        guard case .corrupt(let trailing) = problem(bytes + [0], context) else { Issue.record("trailing byte accepted"); return }
        #expect(trailing.contains("after the state"))
        // Every single-byte change: refused or a tracker, never a trap.
        for k in bytes.indices {
            var damaged = bytes
            damaged[k] ^= 0x5A
            _ = problem(damaged, context)
        }
    }
}
