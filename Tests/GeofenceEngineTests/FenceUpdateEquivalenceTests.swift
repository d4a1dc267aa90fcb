import Foundation
import GeofenceTestSupport
import Testing
@testable import GeofenceEngine

/// Fence updates over seeded random fleets, against runs without the update: what happens
/// before the update is untouched, the removal exits are exactly the (device, fence) pairs
/// reported inside at the update, and a removed fence says nothing after it.
@Suite("Fence updates: equivalences over seeded fleets")
struct FenceUpdateEquivalenceTests {
    typealias F = EventsFixtures

    /// Circles and squares within 600 m of the base, ids f00…
    static func fences(_ rng: inout SplitMix64, count: Int, prefix: String = "f") -> [Fence] {
        (0..<count).map { k in
            let id = "\(prefix)\(k < 10 ? "0" : "")\(k)"
            let east = rng.double(-600...600), north = rng.double(-600...600)
            return rng.chance(0.7)
                ? F.circle(id, east: east, north: north, radius: rng.double(30...200), dwellSeconds: rng.chance(0.3) ? 20 : nil)
                : F.square(id, east: east, north: north, half: rng.double(30...150))
        }
    }

    /// A random walk a device takes: a fix every 5–40 s for `until` seconds.
    static func walk(_ rng: inout SplitMix64, until: Double) -> [Fix] {
        var t = rng.double(0...60), east = rng.double(-700...700), north = rng.double(-700...700)
        var out: [Fix] = []
        while t < until {
            out.append(F.fix(t, east: east, north: north))
            t += rng.double(5...40)
            east += rng.double(-120...120)
            north += rng.double(-120...120)
        }
        return out
    }

    /// The old set's fences with about a fifth removed, a fifth changed, and a few added.
    static func republished(_ old: [Fence], _ rng: inout SplitMix64) -> [Fence] {
        var out: [Fence] = []
        for var fence in old {
            let roll = rng.double(0...1)
            if roll < 0.2 { continue }
            if roll < 0.4, case .circle(let center, let radius) = fence.shape {
                fence.shape = .circle(center: center, radius: radius * rng.double(0.5...1.6))
            }
            out.append(fence)
        }
        return out + fences(&rng, count: 3, prefix: "n")
    }

    @Test("before T identical, removal exits = pairs reported inside at T, no removed fence after T", arguments: testSeeds(sized(full: 12, quick: 3)))
    func equivalences(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let configuration = TrackerConfiguration(ignorePeriod: 30, dwell: 45, presenceInterval: rng.chance(0.5) ? 90 : nil)
        let oldFences = Self.fences(&rng, count: 30)
        let old = try FenceSet(oldFences)
        let new = try FenceSet(Self.republished(oldFences, &rng))
        let context = try TrackerContext(fenceSet: old, configuration: configuration)
        let oldEvaluator = try ContainmentEvaluator(fenceSet: old)
        let update = try FenceUpdate(from: context, to: new, at: F.time(600))
        let newEvaluator = try ContainmentEvaluator(fenceSet: new)
        let removed = Set(update.change.removed)
        let t = update.time
        var exitsSeen = 0
        for device in 0..<40 {
            let fixes = Self.walk(&rng, until: 1200)
            // Without the update.
            var plain = DeviceTracker(context: context)
            var plainEvents: [GeofenceEvent] = []
            var insideAtT: Set<String>? = nil
            for fix in fixes {
                if insideAtT == nil && fix.timestamp >= t {
                    // What is reported inside just before T (events due before T fired).
                    plainEvents += try plain.advance(to: Timestamp(milliseconds: t.milliseconds - 1))
                    insideAtT = Set(plain.reportedInside.map { old.geofenceID(at: Int($0)) })
                }
                plainEvents += try plain.update(context.observe(fix, using: oldEvaluator))
            }
            if insideAtT == nil {
                plainEvents += try plain.advance(to: Timestamp(milliseconds: t.milliseconds - 1))
                insideAtT = Set(plain.reportedInside.map { old.geofenceID(at: Int($0)) })
            }
            // With it.
            var moved = DeviceTracker(context: context)
            var events: [GeofenceEvent] = []
            var applied = false
            for fix in fixes {
                if !applied && fix.timestamp >= t {
                    events += try moved.apply(update)
                    applied = true
                }
                let ctx = moved.context
                events += try moved.update(ctx.observe(fix, using: applied ? newEvaluator : oldEvaluator))
            }
            if !applied { events += try moved.apply(update) }
            events += moved.finish()
            let label = "seed \(seed) device \(device)"
            #expect(events.filter { $0.timestamp < t } == plainEvents.filter { $0.timestamp < t }, "\(label): before T")
            let exits = events.filter { $0.reason == .fenceRemoved }
            #expect(exits.allSatisfy { $0.timestamp == t && $0.type == .exit }, "\(label)")
            #expect(Set(exits.map(\.geofenceID)) == insideAtT!.intersection(removed), "\(label): removal exits")
            #expect(exits.count == Set(exits.map(\.geofenceID)).count, "\(label): one exit a fence")
            #expect(!events.contains { $0.timestamp >= t && $0.reason == nil && removed.contains($0.geofenceID) }, "\(label): removed after T")
            exitsSeen += exits.count
        }
        #expect(exitsSeen > 0, "seed \(seed): the fleet met removal exits")
    }
}
